import type { Io } from '../../cli/lib/io';

/** An in-memory `Io`: what a command wrote, and a stop button standing in for Ctrl-C. */
export interface MemoryIo extends Io {
  /** Everything written to stdout so far. */
  out(): string;
  /** Everything written to stderr so far. */
  err(): string;
  /** The non-empty stdout lines so far. */
  outLines(): string[];
  /** Presses Ctrl-C. */
  stop(): void;
}

/** Builds a `MemoryIo` in `cwd` with the given environment (nothing from the real process). */
export function memoryIo(
  options: { cwd?: string; env?: Record<string, string | undefined>; isTty?: boolean } = {},
): MemoryIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const controller = new AbortController();
  return {
    stdout: (text) => {
      stdout.push(text);
    },
    stderr: (text) => {
      stderr.push(text);
    },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    stopSignal: controller.signal,
    isTty: options.isTty ?? false,
    out: () => stdout.join(''),
    err: () => stderr.join(''),
    outLines: () =>
      stdout
        .join('')
        .split('\n')
        .filter((line) => line !== ''),
    stop: () => controller.abort(),
  };
}

/** A stack frame line as Node prints it (`    at fn (file:1:2)`): never for users. */
export const STACK_FRAME = /^\s+at /m;
