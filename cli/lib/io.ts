import { userInfo } from 'node:os';

/** Where a command writes and what it reads from its surroundings; tests pass their own. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Resolves when the user asks the command to stop (Ctrl-C); long-running commands race it. */
  readonly stopSignal: AbortSignal;
  readonly isTty: boolean;
  /** The clock of commands that stamp what people do (silences, acks); tests pass theirs. */
  readonly now?: () => number;
  /** The operating system's name of the user (`--by`'s default); undefined when it has none. */
  readonly userName?: () => string | undefined;
}

/** `os.userInfo()`'s name: it throws where the user has no entry (some containers). */
function osUserName(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The real process's streams, environment and Ctrl-C. A reader that goes away (`telealert poll
 * | head -1`) stops the command as Ctrl-C would, quietly, as Unix tools do, instead of an
 * unhandled EPIPE with a stack trace.
 */
export function processIo(): Io {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let stdoutOpen = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stdoutOpen = false;
    stop();
  });
  return {
    stdout: (text) => {
      if (stdoutOpen) process.stdout.write(text);
    },
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    stopSignal: controller.signal,
    isTty: Boolean(process.stdout.isTTY),
    userName: osUserName,
  };
}
