import { DurationFormatError } from './errors';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const UNIT_PATTERN = /^(\d+(?:\.\d+)?)(s|m|h|d)$/;
const CLOCK_PATTERN = /^(\d+):([0-5]?\d):([0-5]?\d)$/;

/**
 * Reads a duration as the rules file writes it: `90s`, `15m`, `2h`, `1d`, or `HH:MM:SS`
 * (hours may exceed 24). Returns milliseconds; throws `DurationFormatError` otherwise.
 */
export function parseDuration(text: string): number {
  const ms = tryParseDuration(text);
  if (ms === undefined) throw new DurationFormatError(text);
  return ms;
}

/** Like `parseDuration`, but `undefined` instead of an error. */
export function tryParseDuration(text: string): number | undefined {
  const value = text.trim();
  const unit = UNIT_PATTERN.exec(value);
  if (unit) {
    const ms = Number(unit[1]) * UNIT_MS[unit[2] as keyof typeof UNIT_MS];
    return Number.isFinite(ms) ? Math.round(ms) : undefined;
  }
  const clock = CLOCK_PATTERN.exec(value);
  if (clock) {
    const ms = (Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3])) * 1000;
    return Number.isFinite(ms) ? ms : undefined;
  }
  return undefined;
}

/** Formats milliseconds for people: `45s`, `5m`, `2h 5m`, `1d 3h`. */
export function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(totalSeconds / 86_400);
  const h = Math.floor((totalSeconds % 86_400) / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  const parts: string[] = [];
  if (d) parts.push(`${d}d`);
  if (h) parts.push(`${h}h`);
  if (m) parts.push(`${m}m`);
  if (s || parts.length === 0) parts.push(`${s}s`);
  return parts.slice(0, 2).join(' ');
}
