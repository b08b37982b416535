import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCallTime } from '../../shared/time/call-time';

describe('Function: parseCallTime', () => {
  it('reads HH:MM:SS as the general path does', () => {
    const clockish = fc.oneof(
      fc.stringMatching(/^[0-9]{2}:[0-9]{2}:[0-9]{2}$/),
      fc.string({ minLength: 8, maxLength: 8 }),
      fc.constantFrom('00:60:00', '00:00:60', '99:59:59', '0a:00:00', '00:00:0 '),
    );
    fc.assert(
      fc.property(clockish, (text) => {
        // A leading space skips the fixed-width fast path: the general reading is the reference.
        expect(parseCallTime(text)).toBe(parseCallTime(` ${text}`));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads hours, minutes and seconds', () => {
    expect(parseCallTime('01:02:03')).toBe(3723);
    expect(parseCallTime('00:01:30')).toBe(90);
    expect(parseCallTime('00:61:00')).toBeUndefined();
  });
});
