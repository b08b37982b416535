import { formatApiDateTime, formatInZone } from '../time/zone';
import { WEEKDAYS } from '../types/config';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Mon 30 Nov 09:00`: a handoff's time on the local clock, short enough for an SMS. */
export function handoffTime(epochMs: number, zone: string): string {
  const wall = formatApiDateTime(epochMs, zone);
  const [year, month, day] = wall.slice(0, 10).split('-').map(Number) as [number, number, number];
  const weekday = WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()] ?? '';
  const name = `${weekday.charAt(0).toUpperCase()}${weekday.slice(1)}`;
  return `${name} ${day} ${MONTHS[month - 1]} ${wall.slice(11, 16)}`;
}

/** `Mon 2026-11-30 09:00 IST`: a handoff for the command line, with its zone. */
export function handoffInZone(epochMs: number, zone: string): string {
  const full = formatInZone(epochMs, zone);
  const short = handoffTime(epochMs, zone).slice(0, 3);
  // `2026-11-30 09:00:00 IST` without the seconds.
  return `${short} ${full.slice(0, 16)}${full.slice(19)}`;
}
