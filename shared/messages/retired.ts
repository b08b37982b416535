import { isHealthAlert } from './health';
import { isLimitAlert } from './limit';
import type { MessageInput } from './types';

/**
 * Whether a message is about an alert of a rule the rules file no longer has (removed or
 * renamed, contract 6.1 rule 8): no rule, a reason, and not a built-in alert.
 */
export function isRetiredRule(input: MessageInput): boolean {
  return (
    input.rule === undefined &&
    input.reason !== undefined &&
    !isLimitAlert(input) &&
    !isHealthAlert(input)
  );
}

/** The rule lines of the email. */
export function retiredLines(input: MessageInput): (readonly [string, string])[] {
  return [
    ['Rule', `${input.ruleName} (no longer in the rules file)`],
    ['Resolved', input.reason ?? ''],
  ];
}

/** What a person should do. */
export function retiredChecks(): string[] {
  return [
    'telealert no longer evaluates this rule (a deploy removed or renamed it), so the alert ends here as far as telealert can tell: it was not seen to stop.',
    'If what it watched still matters, check it by hand now; a renamed rule fires again under its new name if its condition still holds.',
  ];
}
