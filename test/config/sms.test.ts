import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config/errors';
import { parseConfig } from '../../shared/config/load';
import { smsAttributes, smsChannelNames } from '../../shared/messages/sms-attributes';

const MINIMAL = `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
channels:
  oncall: { sms: ["+919800000001"], email: [oncall@example.com] }
  finance: { email: [finance@example.com] }
rules: []
`;

const INDIA = `${MINIMAL}sms:
  type: Transactional
  senderId: TLALRT
  monthlyBudgetUsd: 20
  dlt:
    entityId: "1101234567890123456"
    templateId: "1107123456789012345"
    template: "telealert {#var#}: {#var#}. {#var#} -TLALRT"
`;

/** The lines of the ConfigError thrown for `text`. */
function errorsOf(text: string): string[] {
  try {
    parseConfig(text, 'telealert.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error('expected a ConfigError');
}

function withSms(block: string): string {
  return `${MINIMAL}sms:\n${block
    .trim()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')}\n`;
}

describe('Function: parseConfig, the sms block', () => {
  it('fills the defaults when there is no sms block: Transactional, USD 1', () => {
    expect(parseConfig(MINIMAL, 'telealert.yaml').sms).toEqual({
      type: 'Transactional',
      monthlyBudgetUsd: 1,
    });
  });

  it('reads the contract example', () => {
    expect(parseConfig(INDIA, 'telealert.yaml').sms).toEqual({
      type: 'Transactional',
      senderId: 'TLALRT',
      monthlyBudgetUsd: 20,
      dlt: {
        entityId: '1101234567890123456',
        templateId: '1107123456789012345',
        template: 'telealert {#var#}: {#var#}. {#var#} -TLALRT',
      },
    });
  });

  it('refuses a template with no slot, naming the template', () => {
    expect(errorsOf(INDIA.replace('{#var#}: {#var#}. {#var#} ', 'alert '))).toEqual([
      'telealert.yaml: sms.dlt.template: "telealert alert -TLALRT" has no {#var#} slot, so no alert fits in it: register a template with at least one',
    ]);
  });

  it('refuses a template whose fixed text leaves no room in one segment', () => {
    const long = `${'x'.repeat(150)} {#var#}`;
    const [line] = errorsOf(INDIA.replace(/template: ".*"/, `template: "${long}"`));
    expect(line).toMatch(
      /^telealert\.yaml: sms\.dlt\.template: "x{150} \{#var#\}" has 151 characters/,
    );
  });

  it('refuses ids that are not DLT digit strings, and an unquoted id YAML turned into a number', () => {
    const text = INDIA.replace('"1101234567890123456"', '1101234567890123456').replace(
      '"1107123456789012345"',
      '"T-1107"',
    );
    expect(errorsOf(text)).toEqual([
      'telealert.yaml: sms.dlt.entityId: quote the id ("1101234567890123500"): unquoted, YAML reads a 19-digit id as a number and changes its last digits',
      'telealert.yaml: sms.dlt.templateId: "T-1107" is not a DLT id: write the digits DLT issued (usually 19), in quotes',
    ]);
  });

  it('refuses a sender ID AWS would refuse: too long, no letter, a space', () => {
    for (const senderId of ['TELEALERTSMS', '123456', 'TL ALRT', 'TL']) {
      expect(errorsOf(withSms(`senderId: "${senderId}"`))).toEqual([
        `telealert.yaml: sms.senderId: "${senderId}" is not a sender ID: 3 to 11 letters, digits or hyphens, at least one a letter, no spaces`,
      ]);
    }
    expect(parseConfig(withSms('senderId: Tele-Alert1'), 'f.yaml').sms?.senderId).toBe(
      'Tele-Alert1',
    );
  });

  it('wants the 6-letter DLT header as sender ID with dlt', () => {
    expect(errorsOf(INDIA.replace('senderId: TLALRT', 'senderId: TLALRT1'))).toEqual([
      `telealert.yaml: sms.senderId: "TLALRT1" is not a DLT header: India's headers for transactional and service SMS are exactly 6 letters (the one registered with the template)`,
    ]);
    expect(errorsOf(INDIA.replace('  senderId: TLALRT\n', ''))).toEqual([
      'telealert.yaml: sms.senderId: is required with dlt: the 6-letter header registered with the template (local routes in India send from it)',
    ]);
  });

  it('reports type, budget and unknown keys together', () => {
    expect(
      errorsOf(
        withSms(`
type: transactional
monthlyBudgetUsd: 0
senderID: TLALRT`),
      ),
    ).toEqual([
      'telealert.yaml: sms.senderID: unknown key; did you mean "senderId"?',
      'telealert.yaml: sms.type: must be one of Transactional, Promotional',
      "telealert.yaml: sms.monthlyBudgetUsd: must be a number of US dollars above 0: the account's SNS SMS spend limit",
    ]);
  });
});

describe('Function: smsChannelNames', () => {
  it('names the channels that have SMS subscribers', () => {
    expect(smsChannelNames(parseConfig(MINIMAL, 'f.yaml'))).toEqual(['oncall']);
  });
});

describe('Function: smsAttributes', () => {
  it('sends the SMS type, sender ID and DLT ids', () => {
    expect(smsAttributes(parseConfig(INDIA, 'f.yaml').sms)).toEqual({
      'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
      'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'TLALRT' },
      'AWS.MM.SMS.EntityId': { DataType: 'String', StringValue: '1101234567890123456' },
      'AWS.MM.SMS.TemplateId': { DataType: 'String', StringValue: '1107123456789012345' },
    });
  });

  it('sends only the type when the block says nothing else, Transactional by default', () => {
    const expected = {
      'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
    };
    expect(smsAttributes(parseConfig(MINIMAL, 'f.yaml').sms)).toEqual(expected);
    expect(smsAttributes(undefined)).toEqual(expected);
    expect(
      smsAttributes(parseConfig(withSms('type: Promotional'), 'f.yaml').sms)['AWS.SNS.SMS.SMSType'],
    ).toEqual({ DataType: 'String', StringValue: 'Promotional' });
  });
});
