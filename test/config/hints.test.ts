import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../shared/config/hints';

describe('Function: editDistance', () => {
  it.each([
    ['groupBy', 'groupBy', 0],
    ['state', 'stat', 1],
    ['for', 'fro', 1],
    ['severity', 'severty', 1],
    ['abc', 'xyz', 3],
    ['', 'abc', 3],
  ])('counts the edits between %s and %s', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});

describe('Function: closest', () => {
  const keys = ['groupBy', 'keepFiring', 'for', 'repeat', 'notify'];

  it('ignores case, underscores and dashes', () => {
    expect(closest('group_by', keys)).toBe('groupBy');
    expect(closest('keep-firing', keys)).toBe('keepFiring');
  });

  it('suggests nothing when no candidate is close', () => {
    expect(closest('colour', keys)).toBeUndefined();
    expect(closest('x', ['for'])).toBeUndefined();
  });
});
