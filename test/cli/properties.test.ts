import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main';
import {
  mutatedWhere,
  plausibleTimelineText,
  rulesFileText,
  shippedRules,
  timelineText,
} from './arbitraries';
import { memoryIo, STACK_FRAME } from './io';

const SHIPPED_TEXT = readFileSync(new URL('../../telealert.yaml', import.meta.url), 'utf8');
const SHIPPED = shippedRules(SHIPPED_TEXT);
const dir = mkdtempSync(join(tmpdir(), 'telealert-cli-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI in the tmp dir and checks the outcome is 0, or 2 with a clean message. */
async function expectCleanOutcome(argv: string[]): Promise<number> {
  const io = memoryIo({ cwd: dir });
  const code = await runCli(argv, io);
  expect([0, 2]).toContain(code);
  expect(io.err()).not.toMatch(STACK_FRAME);
  if (code === 2) expect(io.err().trim()).not.toBe('');
  if (code === 0 && argv[0] === 'replay') {
    for (const line of io.outLines()) expect(() => JSON.parse(line)).not.toThrow();
  }
  return code;
}

describe('Property: no input crashes the command line', () => {
  it('validate exits 0 or 2 with a clear message for any rules file', async () => {
    await fc.assert(
      fc.asyncProperty(rulesFileText(SHIPPED), async (rules) => {
        writeFileSync(join(dir, 'rules.yaml'), rules);
        await expectCleanOutcome(['validate', '--config', 'rules.yaml']);
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it('replay exits 0 or 2 with a clear message for any rules file', async () => {
    writeFileSync(join(dir, 'empty.jsonl'), '');
    await fc.assert(
      fc.asyncProperty(rulesFileText(SHIPPED), async (rules) => {
        writeFileSync(join(dir, 'rules.yaml'), rules);
        await expectCleanOutcome(['replay', '--config', 'rules.yaml', '--timeline', 'empty.jsonl']);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('replay exits 0 or 2 with a clear message for any timeline on the shipped rules', async () => {
    writeFileSync(join(dir, 'telealert.yaml'), SHIPPED_TEXT);
    await fc.assert(
      fc.asyncProperty(fc.oneof(timelineText, plausibleTimelineText), async (timeline) => {
        writeFileSync(join(dir, 'timeline.jsonl'), timeline);
        await expectCleanOutcome(['replay', '--timeline', 'timeline.jsonl']);
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it('replay exits 0 or 2 with a clear message for any rules file and timeline together', async () => {
    await fc.assert(
      fc.asyncProperty(rulesFileText(SHIPPED), timelineText, async (rules, timeline) => {
        writeFileSync(join(dir, 'rules.yaml'), rules);
        writeFileSync(join(dir, 'timeline.jsonl'), timeline);
        await expectCleanOutcome([
          'replay',
          '--config',
          'rules.yaml',
          '--timeline',
          'timeline.jsonl',
        ]);
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it('replay exits 0 or 2 for drifted records under rules with one more condition of any kind', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedWhere(SHIPPED), plausibleTimelineText, async (rules, timeline) => {
        writeFileSync(join(dir, 'rules.yaml'), rules);
        writeFileSync(join(dir, 'timeline.jsonl'), timeline);
        await expectCleanOutcome([
          'replay',
          '--config',
          'rules.yaml',
          '--timeline',
          'timeline.jsonl',
        ]);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
