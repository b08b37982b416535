import type { MessageInput } from './types';
import { RECORD_NOUN } from './words';

/** The built-in alert raised when a rule matches more than it may track (`engine/limit.ts`). */
export const TOO_MANY_ALERTS = 'too_many_alerts';

/** Whether a message is about `too_many_alerts`. */
export function isLimitAlert(input: MessageInput): boolean {
  return input.rule === undefined && input.ruleName === TOO_MANY_ALERTS;
}

/** What the limited rule's instances are: groups for an aggregate, else the source's records. */
function noun(input: MessageInput): string {
  const limited = input.config.rules.find((rule) => rule.name === input.context.rule);
  return limited?.count !== undefined ? 'groups' : RECORD_NOUN[input.source];
}

/** `148000 payments not tracked (limit 3000)`: the key fact, SMS first. */
export function limitValue(input: MessageInput): string {
  const rule = input.context.rule ?? '?';
  return input.status === 'firing'
    ? `rule ${rule}: ${input.context.untracked ?? '?'} ${noun(input)} not tracked (limit ${input.context.limit ?? '?'})`
    : `rule ${rule}: ${input.reason ?? 'every match tracked again'}`;
}

/** The rule lines of the email. */
export function limitLines(input: MessageInput): (readonly [string, string])[] {
  const { context } = input;
  return [
    [
      'Rule',
      `${input.ruleName} (built in: rule ${context.rule ?? '?'} matches more ${noun(input)} than it may track)`,
    ],
    ['Not tracked', `${context.untracked ?? '?'} ${noun(input)} at the last evaluation`],
    ['Tracked', `${context.tracked ?? '?'} (at most ${context.limit ?? '?'} for this rule)`],
    ...(input.reason === undefined ? [] : [['Resolved', input.reason] as const]),
  ];
}

/** What a person should do about it. */
export function limitChecks(input: MessageInput): string[] {
  return [
    `Rule ${input.context.rule ?? '?'} alerts on what it tracks; the ${noun(input)} it leaves out start only as tracked ones resolve. Nothing about them is sent meanwhile.`,
    "Narrow the rule's where conditions (rules pick out exceptions), or split it by source or field; a source's rules share its tracked alerts evenly (docs/decisions.md: the limit of 6,000 tracked alerts per source).",
    'If the matches are a real incident (a gateway down, a flood of calls), this one alert stands for all of them.',
  ];
}
