import type { RunningSimulator } from '../../simulator/server';

export const TOKEN = 'sim-token';
/** 2026-11-21 10:00:00 in Asia/Kolkata. */
export const START_MS = Date.UTC(2026, 10, 21, 4, 30, 0);
export const MINUTE = 60_000;
const IST_OFFSET_MS = 330 * MINUTE;

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** GET a path with the simulator's token (or another, or none with `null`). */
export async function get(
  sim: RunningSimulator,
  path: string,
  token: string | null = TOKEN,
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${sim.url}${path}`, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** GET and parse a JSON array of records. */
export async function getRecords(
  sim: RunningSimulator,
  path: string,
): Promise<Record<string, unknown>[]> {
  const answer = await get(sim, path);
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text}`);
  return JSON.parse(answer.text) as Record<string, unknown>[];
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A payment's `DD-Mon-YYYY HH:MM:SS` read as IST, independently of the simulator's code. */
export function paymentTimeIst(text: unknown): number {
  const match = /^(\d{2})-([A-Z][a-z]{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(String(text));
  if (!match) throw new Error(`not a payment timestamp: ${String(text)}`);
  const [, day, month, year, hour, minute, second] = match;
  return (
    Date.UTC(
      Number(year),
      MONTHS.indexOf(month ?? ''),
      Number(day),
      Number(hour),
      Number(minute),
      Number(second),
    ) - IST_OFFSET_MS
  );
}

/** `Y-m-d H:i:s` in IST for an instant. */
export function istText(ms: number): string {
  return new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

export function statusOf(record: Record<string, unknown>): string {
  return String(record.status ?? record.state).toLowerCase();
}
