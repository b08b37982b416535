import { Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { TelealertAlerting } from '../../infra/alerting';
import { DEAD_LETTER_QUEUE_ACKS } from '../../infra/nag';
import { SHIPPED_CONFIG, type Synth, stubProject, synthStack } from './helpers';

let synth: Synth;

beforeAll(() => {
  synth = synthStack(SHIPPED_CONFIG);
}, 60_000);

/** Every acknowledgement recorded in the construct tree, as `{ id: reason }`. */
function acknowledgements(root: Synth['app']): Record<string, string> {
  const found: Record<string, string> = {};
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY) {
        Object.assign(found, entry.data as Record<string, string>);
      }
    }
  }
  return found;
}

describe('cdk-nag: AwsSolutions', () => {
  it('finds nothing that is not acknowledged', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.description}`)).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('gives every acknowledgement a reason', () => {
    const acks = acknowledgements(synth.app);
    expect(Object.keys(acks).length).toBe(DEAD_LETTER_QUEUE_ACKS.length);
    for (const reason of Object.values(acks)) expect(reason.length).toBeGreaterThan(40);
  });

  it('acknowledges only findings that really occur', () => {
    // The same construct without the stack's acknowledgements: each acknowledged rule fires.
    const stack = new Stack(synth.app, 'Unacknowledged');
    new TelealertAlerting(stack, 'Telealert', {
      configFile: SHIPPED_CONFIG,
      projectRoot: stubProject(),
    });
    const rules = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
    for (const ack of DEAD_LETTER_QUEUE_ACKS) expect(rules).toContain(ack.id);
  }, 60_000);
});
