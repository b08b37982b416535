import { describe, expect, it } from 'vitest';
import { fastClock, ManualClock } from '../../simulator/clock';

describe('Class: ManualClock', () => {
  it('moves only when set or advanced', () => {
    const clock = new ManualClock(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(500);
    expect(clock.now()).toBe(1500);
    clock.set(42);
    expect(clock.now()).toBe(42);
  });
});

describe('Function: fastClock', () => {
  it('runs factor times faster than real time from its start instant', () => {
    let real = 5_000;
    const clock = fastClock(1_000_000, 60, () => real);
    expect(clock.now()).toBe(1_000_000);
    real += 1_000;
    expect(clock.now()).toBe(1_060_000);
  });

  it('rejects a factor that is not positive', () => {
    expect(() => fastClock(0, 0)).toThrow(RangeError);
    expect(() => fastClock(0, Number.NaN)).toThrow(RangeError);
  });
});
