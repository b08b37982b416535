import { describe, expect, it } from 'vitest';
import { measureNotifierFlood } from '../../bench/messages';
import { benchConfig } from '../../bench/rules';
import { SHIPPED_RULES } from '../cli/fixtures';

describe('Function: measureNotifierFlood', () => {
  it('tells every backlog event in one step, defers the night and tells it in the morning digest', () => {
    const figures = measureNotifierFlood(benchConfig(SHIPPED_RULES, 0), 1, 300, 200);
    expect(figures.map(({ events, told, runs }) => ({ events, told, runs }))).toEqual([
      { events: 300, told: 300, runs: 1 },
      { events: 200, told: 0, runs: 1 },
      { events: 200, told: 200, runs: 1 },
    ]);
    // The night step's one message is the shipped rotation's first handoff (to oncall): finance
    // is told nothing until its morning digest, which comes after the night's handoffs.
    expect(figures[1]?.messages).toBe(1);
    expect(figures[2]?.messages).toBeGreaterThan(0);
  });
});
