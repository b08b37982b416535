import type { ActiveHours } from '../types/config';
import { WEEKDAYS } from '../types/config';

const clock = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** `mon, tue, wed, thu, fri 09:00-18:00`, in the week's order; `always` without a window. */
export function describeActive(active: ActiveHours | undefined): string {
  if (active === undefined) return 'always';
  const days = WEEKDAYS.filter((day) => active.days.includes(day));
  const named = days.length === WEEKDAYS.length ? 'every day' : days.join(', ');
  return `${named} ${clock(active.fromMinutes)}-${clock(active.toMinutes)}`;
}
