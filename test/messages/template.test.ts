import { describe, expect, it } from 'vitest';
import { parseTemplate, placeholdersFor, renderTemplate } from '../../shared/messages/template';

describe('Function: renderTemplate', () => {
  it('fills placeholders and reads doubled braces as literal braces', () => {
    expect(renderTemplate('{count} on {did} {{not {count}}}', { count: '6', did: '+91800' })).toBe(
      '6 on +91800 {not 6}',
    );
  });

  it('writes ? for a placeholder without a value', () => {
    expect(renderTemplate('agent {agent_name}', {})).toBe('agent ?');
  });
});

describe('Function: parseTemplate', () => {
  it.each([
    ['{count', '"{" at position 1 is not closed; write {{ for a brace'],
    ['a {two words}', '"{two words}" is not a placeholder; write {{ for a brace'],
  ])('refuses %j', (template, message) => {
    expect(parseTemplate(template)).toEqual({ ok: false, message });
  });
});

describe('Function: placeholdersFor', () => {
  it('offers count, value, threshold and the groupBy fields to aggregate rules', () => {
    expect(placeholdersFor({ source: 'live_calls', groupBy: ['did'], count: '> 5' })).toEqual(
      new Set(['rule', 'severity', 'count', 'value', 'threshold', 'did']),
    );
  });

  it('offers every field of the source, age included, to per-record rules', () => {
    const names = placeholdersFor({ source: 'payments', groupBy: [] });
    expect(names.has('amount_paid')).toBe(true);
    expect(names.has('age')).toBe(true);
    expect(names.has('count')).toBe(false);
  });
});
