import { clip, toAscii } from './ascii';
import { fillDltTemplate } from './dlt';
import { healthValue, isHealthAlert } from './health';
import { isLimitAlert, limitValue } from './limit';
import { isRetiredRule } from './retired';
import { fitSms, oneLine } from './sms';
import { renderText } from './story';
import { renderTemplate } from './template';
import type { MessageInput, RenderedMessage } from './types';
import { aggregateValue, identity, recordValue, templateValues } from './words';

/** Email subjects must stay under 100 characters (SNS). */
const SUBJECT_MAX = 99;

/** `6 ringing > 5`, `age 42m > 30m`, `live_calls failing 3 polls (http 500)`: the key fact. */
function valuePart(input: MessageInput): string {
  const rule = input.rule;
  if (isLimitAlert(input)) return limitValue(input);
  if (isRetiredRule(input)) return input.reason ?? '';
  if (rule === undefined) return healthValue(input);
  if (rule.count !== undefined) return aggregateValue(rule, input);
  return input.status === 'firing'
    ? recordValue(rule, input)
    : (input.reason ?? 'no longer matches');
}

/**
 * Renders one notification three ways (contract section 4):
 * - `sms`: one segment at most; status, rule, value vs threshold and the identity first, then
 *   the summary and severity, cut cleanly at a grapheme when too long.
 * - `subject`: `[SEVERITY] STATUS rule: summary-or-facts`, ASCII, one line, under 100.
 * - `text`: the full story for email, times in the configured zone.
 * Pure: every time comes from the input.
 */
export function renderMessage(input: MessageInput): RenderedMessage {
  const status = input.status === 'firing' ? 'FIRING' : 'RESOLVED';
  // A summary says what fires ("payment 7003 not settled after 45m", "ringing for 00:02:40"),
  // in the values seen now: at a resolution those are the record that no longer matches (paid,
  // answered), so the summary would claim a breach that has ended. A resolution tells the rule,
  // "no longer matches" or the value now, and the identity instead.
  const summaryTemplate = input.status === 'firing' ? input.rule?.summary : undefined;
  const summary =
    summaryTemplate === undefined
      ? undefined
      : oneLine(renderTemplate(summaryTemplate, templateValues(input)));
  // The built-in alerts name their rule or source in their value (their only label).
  const about = isLimitAlert(input) || isHealthAlert(input) ? '' : identity(input);
  const facts = [valuePart(input), about].filter((part) => part !== '').join('; ');
  const dlt = input.config.sms?.dlt;
  // With DLT the registered template is the message: the facts fill its slots, most important first.
  const sms =
    dlt === undefined
      ? fitSms(
          [`${status} ${input.ruleName}: ${facts}`, summary, input.severity]
            .filter((part) => part !== undefined && part !== '')
            .join('; '),
        )
      : fillDltTemplate(dlt.template, [
          `${status} ${input.ruleName}`,
          valuePart(input),
          about,
          summary ?? '',
          input.severity,
        ]);
  const subject = clip(
    toAscii(`[${input.severity.toUpperCase()}] ${status} ${input.ruleName}: ${summary ?? facts}`),
    SUBJECT_MAX,
  );
  const text = renderText(input, oneLine(facts), summary);
  return { sms, subject, text };
}
