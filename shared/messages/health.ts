import type { MessageInput } from './types';

/** The built-in alert raised when a source keeps failing (`engine/health.ts`). */
export const SOURCE_UNAVAILABLE = 'source_unavailable';

/** Why an outage alert ends when no rule reads its source any more (contract 6.1 rule 8). */
export const NO_RULE_READS_REASON = 'no rule reads the source any more';

/** Whether a message is about `source_unavailable`. */
export function isHealthAlert(input: MessageInput): boolean {
  return input.rule === undefined && input.ruleName === SOURCE_UNAVAILABLE;
}

/**
 * `live_calls failing 3 polls (http 500)`, `live_calls answering again`, `payments: no rule
 * reads the source any more`: the key fact.
 */
export function healthValue(input: MessageInput): string {
  if (input.status === 'resolved') {
    return input.reason === undefined
      ? `${input.source} answering again`
      : `${input.source}: ${input.reason}`;
  }
  const error = [input.context.kind, input.context.status].filter(Boolean).join(' ');
  const count = input.context.failures;
  const failures = count ? `${count} ${count === '1' ? 'poll' : 'polls'} failed` : 'failing';
  return `${input.source} ${failures}${error ? ` (${error})` : ''}`;
}

/** The rule lines of the email. */
export function healthLines(input: MessageInput, after: number): (readonly [string, string])[] {
  const { context } = input;
  return [
    [
      'Rule',
      `${input.ruleName} (built in: the ${input.source} API ${input.reason === undefined ? 'keeps' : 'kept'} failing)`,
    ],
    [
      'Failing',
      `${context.failures ?? '?'} ${context.failures === '1' ? 'poll' : 'polls'} in a row (alert after ${after})`,
    ],
    ['Last error', [context.kind, context.status, context.message].filter(Boolean).join(' ')],
    ...(input.reason === undefined ? [] : [['Resolved', input.reason] as const]),
  ];
}

/** What a person should look at first. */
export function healthChecks(input: MessageInput): string[] {
  const { api } = input.config;
  if (input.reason !== undefined) {
    return [
      `No rule of the rules file reads ${input.source} any more (a deploy removed the last), so telealert no longer asks the API for it: the outage ends here as far as telealert can tell, it was not seen to stop.`,
    ];
  }
  return [
    `A 401 or 403 means the token was refused: check that the SSM parameter ${api.tokenParameter} holds a current long-lived token from the provider's panel.`,
    `A timeout, network error or 5xx points at the provider: check that ${api.baseUrl} is up and answering.`,
    'The poller logs (CloudWatch, service telealert) show every failed poll and its reason.',
  ];
}
