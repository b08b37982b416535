import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The first fenced block after `marker`, its lines. */
function blockAfter(text: string, marker: string): string[] {
  const from = text.indexOf(marker);
  expect(from, marker).toBeGreaterThanOrEqual(0);
  const open = text.indexOf('```\n', from);
  const close = text.indexOf('\n```', open + 4);
  return text.slice(open + 4, close).split('\n');
}

/** The on-call messages of a demo transcript: header (time dropped), SMS and email lines. */
function oncallMessages(lines: readonly string[]): string[][] {
  const messages: string[][] = [];
  let current: string[] | undefined;
  for (const line of lines) {
    const header = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+ {2}(\S+) {2}(.*)$/.exec(line);
    if (header) {
      current = header[1] === 'oncall' ? [header[2] ?? ''] : undefined;
      if (current) messages.push(current);
    } else if (current && /^ {2}(SMS|email) /.test(line)) current.push(line);
  }
  return messages;
}

describe('Documentation: examples agree with each other', () => {
  it("shows in messages.md the on-call phone of the demo README shows (npm start's output)", () => {
    const demo = oncallMessages(blockAfter(read('README.md'), '`npm start` needs no AWS account'));
    const phone = oncallMessages(
      blockAfter(read('docs/messages.md'), 'What the on-call phone shows'),
    );
    expect(phone.length).toBeGreaterThan(0);
    expect(phone).toEqual(demo.slice(0, phone.length));
  });
});
