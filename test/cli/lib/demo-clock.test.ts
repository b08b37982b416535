import { describe, expect, it } from 'vitest';
import { demoStartMs } from '../../../cli/lib/demo-clock';
import { formatInZone } from '../../../shared/time/zone';

const at = (iso: string) => Date.parse(iso);
const local = (ms: number, zone: string) => formatInZone(ms, zone);

describe('Function: demoStartMs', () => {
  it("starts at today's 20:20 on the rules' clock once it has passed", () => {
    const start = demoStartMs(at('2026-11-29T16:00:00Z'), 'Asia/Kolkata'); // 21:30 IST
    expect(local(start, 'Asia/Kolkata')).toBe('2026-11-29 20:20:00 IST');
  });

  it("starts at yesterday's 20:20 before it, never ahead of the real date", () => {
    const now = at('2026-11-29T04:00:00Z'); // 09:30 IST
    const start = demoStartMs(now, 'Asia/Kolkata');
    expect(local(start, 'Asia/Kolkata')).toBe('2026-11-28 20:20:00 IST');
    expect(start).toBeLessThanOrEqual(now);
  });

  it('starts at 20:20 exactly when it is 20:20', () => {
    const now = at('2026-11-29T14:50:00Z');
    expect(demoStartMs(now, 'Asia/Kolkata')).toBe(now);
  });

  it('reads 20:20 on the wall clock of a zone with a clock change, on both sides of it', () => {
    expect(local(demoStartMs(at('2026-03-29T23:00:00Z'), 'Europe/London'), 'Europe/London')).toBe(
      '2026-03-29 20:20:00 BST',
    );
    expect(local(demoStartMs(at('2026-03-28T23:00:00Z'), 'Europe/London'), 'Europe/London')).toBe(
      '2026-03-28 20:20:00 GMT',
    );
  });
});
