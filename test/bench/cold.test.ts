import { describe, expect, it } from 'vitest';
import { floorRatio, roundOrder } from '../../bench/cold';

describe('Function: roundOrder', () => {
  it('runs every subject once a round, starting with another one each round', () => {
    const rounds = [0, 1, 2, 3].map((round) => roundOrder(3, round));
    expect(rounds).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
      [0, 1, 2],
    ]);
  });
});

describe('Function: floorRatio', () => {
  it('takes the median of the per-round ratios, so a round slowed for both cancels out', () => {
    // The second round ran under load: both took three times as long, the ratio stayed 1.2.
    const figure = { rounds: [120, 360, 126, 240], minMs: 120, cpuRounds: [60, 66, 63, 72] };
    const floor = { rounds: [100, 300, 90, 100], minMs: 90, cpuRounds: [50, 50, 50, 60] };
    expect(floorRatio(figure, floor)).toEqual({ median: 1.3, min: 1.33, cpu: 1.23 });
  });

  it('refuses figures of different rounds', () => {
    const two = { rounds: [1, 2], minMs: 1, cpuRounds: [1, 2] };
    const one = { rounds: [1], minMs: 1, cpuRounds: [1] };
    expect(() => floorRatio(two, one)).toThrow(RangeError);
  });
});
