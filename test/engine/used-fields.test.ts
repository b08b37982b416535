import { describe, expect, it } from 'vitest';
import { usedFields } from '../../shared/engine/used-fields';
import { config } from './fixtures';

describe('Function: usedFields', () => {
  it('names the conditions, groupBy, summary fields and metric fields of one source', () => {
    const cfg = config([
      {
        name: 'a',
        where: { direction: 'inbound', age: '> 1m' },
        groupBy: ['did'],
        count: '> 1',
        summary: '{count} on {did} from {agent_name} {{literal}}',
      },
      { name: 'b', where: { call_time: '> 1m' }, summary: '{source} {rule}' },
      { name: 'c', source: 'payments', where: { amount_paid: '> 1' } },
    ]);
    expect([...usedFields(cfg, 'live_calls')].sort()).toEqual([
      'age',
      'agent_name',
      'call_time',
      'did',
      'direction',
      'source',
      'state',
    ]);
    expect([...usedFields(cfg, 'payments')].sort()).toEqual(['amount_paid', 'status']);
  });
});
