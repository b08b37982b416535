import { dltTemplateProblem } from '../messages/dlt';
import * as z from '../schema/zod';
import { type DltConfig, SMS_TYPES, type SmsConfig, type SmsType } from '../types/config';
import type { ConfigIssue } from './errors';
import { check } from './issues';

/*
 * The `sms` block (contract section 7). Each key is read on its own so that every problem of
 * the block shows at once; the keys themselves are checked by strict schemas (unknown keys get
 * a "did you mean").
 */

const smsKeys = z.strictObject({
  type: z.optional(z.unknown()),
  senderId: z.optional(z.unknown()),
  monthlyBudgetUsd: z.optional(z.unknown()),
  dlt: z.optional(z.unknown()),
});

const dltKeys = z.strictObject({
  entityId: z.optional(z.unknown()),
  templateId: z.optional(z.unknown()),
  template: z.optional(z.unknown()),
});

/**
 * AWS (SNS developer guide, `AWS.SNS.SMS.SenderID`): 3 to 11 letters, digits or hyphens,
 * at least one letter, no spaces.
 */
const SENDER_ID = /^(?=.*[A-Za-z])[A-Za-z0-9-]{3,11}$/;
/** India: a DLT header for service and transactional SMS is exactly six letters. */
const DLT_HEADER = /^[A-Za-z]{6}$/;
/**
 * DLT issues entity and template ids as digit strings (19 digits today); AWS takes ids of up
 * to 50 characters.
 */
const DLT_ID = /^\d{10,50}$/;
/** A sanity bound: SNS's own spend limit is raised by a support case, far below this. */
const MAX_BUDGET_USD = 1_000_000;

function isRecord(input: unknown): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input);
}

function readDltId(input: unknown, path: string, issues: ConfigIssue[]): string | undefined {
  if (input === undefined) {
    issues.push({ path, message: 'is required: the id DLT issued, in quotes' });
  } else if (typeof input === 'number' || typeof input === 'bigint') {
    issues.push({
      path,
      message: `quote the id ("${String(input)}"): unquoted, YAML reads a 19-digit id as a number and changes its last digits`,
    });
  } else if (typeof input !== 'string' || !DLT_ID.test(input.trim())) {
    issues.push({
      path,
      message: `${JSON.stringify(input)} is not a DLT id: write the digits DLT issued (usually 19), in quotes`,
    });
  } else return input.trim();
  return undefined;
}

function readDlt(raw: unknown, issues: ConfigIssue[]): DltConfig | undefined {
  if (!isRecord(raw)) {
    issues.push({
      path: 'sms.dlt',
      message: 'must be a mapping with entityId, templateId, template',
    });
    return undefined;
  }
  const start = issues.length;
  issues.push(...check(dltKeys, raw, ['sms', 'dlt']).issues);
  const entityId = readDltId(raw.entityId, 'sms.dlt.entityId', issues);
  const templateId = readDltId(raw.templateId, 'sms.dlt.templateId', issues);
  let template: string | undefined;
  if (typeof raw.template !== 'string') {
    issues.push({
      path: 'sms.dlt.template',
      message:
        raw.template === undefined
          ? 'is required: the registered template text, with {#var#} slots'
          : 'must be text: the registered template, with {#var#} slots',
    });
  } else {
    const problem = dltTemplateProblem(raw.template);
    if (problem === undefined) template = raw.template;
    else
      issues.push({
        path: 'sms.dlt.template',
        message: `${JSON.stringify(raw.template)} ${problem}`,
      });
  }
  if (issues.length > start || !entityId || !templateId || template === undefined) return undefined;
  return { entityId, templateId, template };
}

/**
 * Reads the `sms` block: every default filled when it is absent. Pushes its problems to
 * `issues` and returns undefined when there is any.
 */
export function readSms(raw: unknown, issues: ConfigIssue[]): SmsConfig | undefined {
  if (raw === undefined) return { type: 'Transactional', monthlyBudgetUsd: 1 };
  if (!isRecord(raw)) {
    issues.push({
      path: 'sms',
      message: 'must be a mapping (type, senderId, monthlyBudgetUsd, dlt)',
    });
    return undefined;
  }
  const start = issues.length;
  issues.push(...check(smsKeys, raw, ['sms']).issues);

  const type = raw.type ?? 'Transactional';
  if (!SMS_TYPES.includes(type as SmsType)) {
    issues.push({ path: 'sms.type', message: `must be one of ${SMS_TYPES.join(', ')}` });
  }

  const budget = raw.monthlyBudgetUsd ?? 1;
  if (
    typeof budget !== 'number' ||
    !Number.isFinite(budget) ||
    budget <= 0 ||
    budget > MAX_BUDGET_USD
  ) {
    issues.push({
      path: 'sms.monthlyBudgetUsd',
      message: "must be a number of US dollars above 0: the account's SNS SMS spend limit",
    });
  }

  const dlt = raw.dlt === undefined ? undefined : readDlt(raw.dlt, issues);

  let senderId: string | undefined;
  if (raw.senderId !== undefined) {
    const text = typeof raw.senderId === 'string' ? raw.senderId.trim() : undefined;
    if (text === undefined || !SENDER_ID.test(text)) {
      issues.push({
        path: 'sms.senderId',
        message: `${JSON.stringify(raw.senderId)} is not a sender ID: 3 to 11 letters, digits or hyphens, at least one a letter, no spaces`,
      });
    } else if (raw.dlt !== undefined && !DLT_HEADER.test(text)) {
      issues.push({
        path: 'sms.senderId',
        message: `"${text}" is not a DLT header: India's headers for transactional and service SMS are exactly 6 letters (the one registered with the template)`,
      });
    } else senderId = text;
  } else if (raw.dlt !== undefined) {
    issues.push({
      path: 'sms.senderId',
      message:
        'is required with dlt: the 6-letter header registered with the template (local routes in India send from it)',
    });
  }

  if (issues.length > start) return undefined;
  return {
    type: type as SmsType,
    ...(senderId !== undefined ? { senderId } : {}),
    monthlyBudgetUsd: budget as number,
    ...(dlt !== undefined ? { dlt } : {}),
  };
}
