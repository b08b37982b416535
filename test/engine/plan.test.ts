import { describe, expect, it } from 'vitest';
import { planRequests } from '../../shared/engine/plan';
import { config, MINUTE, T0 } from './fixtures';

const WINDOW = { from_date: '2026-11-20 10:00:00', to_date: '2026-11-21 10:00:00' };

describe('Function: planRequests', () => {
  it('asks nothing of a source no rule uses', () => {
    const cfg = config([{ name: 'ringing', where: { state: 'Ringing' } }]);
    expect(planRequests(cfg, 'payments', T0)).toEqual([]);
    expect(planRequests(config([]), 'live_calls', T0)).toEqual([]);
  });

  it('makes one live calls request carrying sources.live_calls.query', () => {
    const base = config([{ name: 'ringing', where: { state: 'Ringing' } }]);
    const cfg = {
      ...base,
      sources: {
        ...base.sources,
        live_calls: { ...base.sources.live_calls, query: { did_number: '8000000001' } },
      },
    };
    expect(planRequests(cfg, 'live_calls', T0)).toEqual([
      { endpoint: 'live_calls', query: { did_number: '8000000001' } },
    ]);
  });

  it('fetches the lookback window as wall-clock times in the zone', () => {
    const cfg = config([{ name: 'stuck', source: 'payments', where: { status: 'pending' } }]);
    expect(planRequests(cfg, 'payments', T0)).toEqual([{ endpoint: 'payments', query: WINDOW }]);
    const short = {
      ...cfg,
      sources: { ...cfg.sources, payments: { everyMs: 5 * MINUTE, lookbackMs: 90 * MINUTE } },
    };
    expect(planRequests(short, 'payments', T0)[0]?.query).toMatchObject({
      from_date: '2026-11-21 08:30:00',
    });
  });

  it('pushes one request per distinct amount comparison when every rule has one', () => {
    const cfg = config([
      { name: 'large', source: 'payments', where: { amount_paid: '>= 100000.10' } },
      {
        name: 'large-success',
        source: 'payments',
        where: { amount_paid: '>= 100000.1', status: 'success' },
      },
      { name: 'tiny', source: 'payments', where: { amount_paid: '< 1' } },
    ]);
    expect(planRequests(cfg, 'payments', T0)).toEqual([
      { endpoint: 'payments', query: { ...WINDOW, amount: '100000.1', operator: '>=' } },
      { endpoint: 'payments', query: { ...WINDOW, amount: '1', operator: '<' } },
    ]);
  });

  it('never pushes an amount down when some rule needs payments of any amount', () => {
    const cfg = config([
      { name: 'large', source: 'payments', where: { amount_paid: '> 100000' } },
      { name: 'stuck', source: 'payments', where: { status: 'pending', age: '> 30m' } },
    ]);
    expect(planRequests(cfg, 'payments', T0)).toEqual([{ endpoint: 'payments', query: WINDOW }]);
  });

  it('does not push an amount equality down (only comparisons map onto operator)', () => {
    const cfg = config([{ name: 'exact', source: 'payments', where: { amount_paid: '500' } }]);
    expect(planRequests(cfg, 'payments', T0)).toEqual([{ endpoint: 'payments', query: WINDOW }]);
  });
});
