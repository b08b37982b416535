import { encodingsOf, FRAGMENT_CHARS } from '../../shared/api/redact';
import type { TokenSource } from '../../shared/api/types';

export interface Call {
  readonly url: string;
  readonly init: RequestInit;
}

export type Handler = (call: Call, index: number) => Response | Promise<Response>;

/** A fetch that answers from a script of handlers (the last one repeats) and records calls. */
export function scriptedFetch(...handlers: Handler[]) {
  const calls: Call[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call = { url: String(input), init: init ?? {} };
    calls.push(call);
    const handler = handlers[Math.min(calls.length - 1, handlers.length - 1)];
    if (!handler) throw new Error('no handler');
    return handler(call, calls.length - 1);
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

export const json =
  (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });

export const text =
  (body: string, status = 200) =>
  () =>
    new Response(body, { status });

/** Waits for the request's signal, as a server that never answers. */
export const hang: Handler = (call) =>
  new Promise((_, reject) => {
    const signal = call.init.signal;
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** A clock that only moves when the client sleeps. */
export function fakeTime(startMs = 1_000_000) {
  const state = { nowMs: startMs, sleeps: [] as number[] };
  return {
    state,
    now: () => state.nowMs,
    sleep: async (ms: number) => {
      state.sleeps.push(ms);
      state.nowMs += ms;
    },
  };
}

/** A token source whose `get` walks through a list of tokens after each `invalidate`. */
export function tokens(...values: string[]): TokenSource & { invalidations: number } {
  let index = 0;
  return {
    invalidations: 0,
    async get() {
      return values[Math.min(index, values.length - 1)] ?? '';
    },
    invalidate() {
      this.invalidations += 1;
      index += 1;
    },
  };
}

/** Every piece of `text` at least FRAGMENT_CHARS long that is a piece of an encoding of `secret`. */
export function leakedPieces(text: string, secret: string): string[] {
  const leaks: string[] = [];
  for (const form of encodingsOf(secret)) {
    for (let start = 0; start + FRAGMENT_CHARS <= form.length; start += 1) {
      const piece = form.slice(start, start + FRAGMENT_CHARS);
      if (text.includes(piece)) leaks.push(piece);
    }
  }
  return leaks;
}
