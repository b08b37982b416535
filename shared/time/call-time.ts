import { twoDigits } from './digits';

const CLOCK = /^(\d+):(\d{1,2})(?::(\d{1,2}))?$/;

/**
 * Reads a call duration as seconds: `HH:MM:SS` (hours may pass 24), `MM:SS`, or plain
 * seconds as a number or numeric text (fractions rounded down). `undefined` when unreadable
 * or negative.
 */
export function parseCallTime(input: unknown): number | undefined {
  if (typeof input === 'number') {
    return Number.isFinite(input) && input >= 0 ? Math.floor(input) : undefined;
  }
  if (typeof input !== 'string') return undefined;
  const fixed = fixedClock(input);
  if (fixed !== undefined) return fixed;
  const value = input.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.floor(Number(value));
  const clock = CLOCK.exec(value);
  if (!clock) return undefined;
  const a = Number(clock[1]);
  const b = Number(clock[2]);
  if (clock[3] === undefined) {
    // MM:SS: minutes may run past 59 on a long call, seconds may not.
    return b > 59 ? undefined : a * 60 + b;
  }
  const c = Number(clock[3]);
  if (b > 59 || c > 59) return undefined;
  return a * 3600 + b * 60 + c;
}

const COLON = 58;

/** Seconds of exactly `HH:MM:SS` (what the API sends), read without a regex; else `undefined`. */
function fixedClock(text: string): number | undefined {
  if (text.length !== 8 || text.charCodeAt(2) !== COLON || text.charCodeAt(5) !== COLON) {
    return undefined;
  }
  const hours = twoDigits(text, 0);
  const minutes = twoDigits(text, 3);
  const seconds = twoDigits(text, 6);
  if (hours < 0 || minutes < 0 || seconds < 0) return undefined;
  if (minutes > 59 || seconds > 59) return undefined;
  return hours * 3600 + minutes * 60 + seconds;
}
