import { join } from 'node:path';
import { Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { TelealertAlerting } from '../../infra/alerting';
import { DEAD_LETTER_QUEUE_ACKS, STREAM_READ_ACKS } from '../../infra/nag';
import { FIXTURES, SHIPPED_CONFIG, type Synth, stubProject, synthStack } from './helpers';

/** One sample a run: no sample queue redrives to the dead-letter queue. */
const ONE_SAMPLE_CONFIG = join(FIXTURES, 'live-calls-only.yaml');

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

  it("acknowledges only the stream grant's ListStreams when a sample queue redrives to the dead-letter queue", () => {
    const acks = acknowledgements(synth.app);
    expect(Object.keys(acks)).toEqual(STREAM_READ_ACKS.map((ack) => `Annotation::${ack.id}`));
    for (const reason of Object.values(acks)) expect(reason).toContain('dynamodb:ListStreams');
  });

  it('acknowledges, with a reason, that the dead-letter queue has none of its own', () => {
    const single = synthStack(ONE_SAMPLE_CONFIG);
    const report = new AwsSolutionsChecks().validateScope(single.app);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
    const acks = acknowledgements(single.app);
    // Validations records an acknowledged rule under its annotation's name.
    expect(Object.keys(acks).sort()).toEqual(
      [...DEAD_LETTER_QUEUE_ACKS, ...STREAM_READ_ACKS].map((ack) => `Annotation::${ack.id}`).sort(),
    );
    for (const reason of Object.values(acks)) expect(reason.length).toBeGreaterThan(40);
  }, 60_000);

  it('acknowledges only findings that really occur', () => {
    // The same construct without the stack's acknowledgements: each acknowledged rule fires.
    const stack = new Stack(synth.app, 'Unacknowledged');
    new TelealertAlerting(stack, 'Telealert', {
      configFile: ONE_SAMPLE_CONFIG,
      projectRoot: stubProject(),
    });
    const rules = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
    for (const ack of [...DEAD_LETTER_QUEUE_ACKS, ...STREAM_READ_ACKS]) {
      // An IAM5 finding is named with the resource it is about: `AwsSolutions-IAM5[Resource::*]`.
      expect(rules.some((rule) => ack.id.startsWith(rule))).toBe(true);
    }
  }, 60_000);
});
