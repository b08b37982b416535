import { describe, expect, it } from 'vitest';
import { TelephonyClient } from '../../shared/api/client';
import { MemoryPublisher, MemoryStateStore } from '../../shared/ports/memory';
import { runSource } from '../../shared/runner/run';
import type { RunEvent } from '../../shared/runner/types';
import { fakeTime, type Handler, json, leakedPieces, scriptedFetch, tokens } from '../api/fakes';
import { config, MINUTE } from '../engine/fixtures';

const TOKEN = 'tk/Live+9f3a=Q7x_SECRET_0123';

const RINGING = config([{ name: 'ringing', where: { state: 'Ringing' }, severity: 'critical' }]);

/** A server that writes the bearer token back as `encode` writes it. */
const echoing =
  (encode: (token: string) => string): Handler =>
  (call) => {
    const token = (new Headers(call.init.headers).get('authorization') ?? '').slice(7);
    return json({ success: false, message: `rejected credentials ${encode(token)}` }, 401)();
  };

describe('Token redaction: from the API answer to what people and logs see', () => {
  it.each([
    ['URL-encoded', (token: string) => encodeURIComponent(token)],
    ['truncated to its first 12 characters', (token: string) => `${token.slice(0, 12)}...`],
    ['a piece from its middle', (token: string) => token.slice(6, 16)],
    ['base64', (token: string) => Buffer.from(token).toString('base64')],
    ['JSON-escaped', (token: string) => token.replaceAll('/', '\\/')],
  ])(
    'keeps a %s echo out of the source_unavailable message, the stored state and the run events',
    async (_name, encode) => {
      const time = fakeTime(Date.parse('2026-11-21T04:30:00Z'));
      const { fetch } = scriptedFetch(echoing(encode));
      const client = new TelephonyClient({
        baseUrl: 'https://api.example.com',
        tokenSource: tokens(TOKEN),
        fetch,
        now: time.now,
        sleep: time.sleep,
        maxAttempts: 1,
      });
      const store = new MemoryStateStore({ now: time.now });
      const publisher = new MemoryPublisher();
      const events: RunEvent[] = [];
      for (let poll = 0; poll < 4; poll += 1) {
        await runSource({
          config: RINGING,
          source: 'live_calls',
          client,
          store,
          publisher,
          now: time.now,
          sleep: time.sleep,
          deadlineMs: time.now() + MINUTE,
          observer: { event: (event) => events.push(event) },
        });
        await time.sleep(MINUTE);
      }
      const told = publisher.published.filter((n) => n.rule === 'source_unavailable');
      expect(told).toHaveLength(1);
      const seen = JSON.stringify([told, (await store.load('live_calls')).state, events]);
      expect(seen).toContain('[redacted]');
      expect(leakedPieces(seen, TOKEN)).toEqual([]);
    },
  );
});
