import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { brokenLinks, githubSlug, headingAnchors, markdownFiles, markdownLinks } from './markdown';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The README is the front page: what fits on it, the rest lives in docs/. */
const README_MAX_BYTES = 16 * 1024;

describe('Documentation: the repository', () => {
  const files = markdownFiles(REPO_ROOT);

  it('finds the README and the docs pages, and nothing under node_modules or dot-folders', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/architecture.md');
    expect(files).toContain('docs/operations.md');
    expect(files.filter((f) => /(^|\/)(node_modules|cdk\.out|\.[^/]+)\//.test(f))).toEqual([]);
  });

  it('has no relative link to a missing file or to a heading that does not exist', () => {
    const broken = files.flatMap((file) => brokenLinks(REPO_ROOT, file));
    expect(broken.map((b) => `${b.file}:${b.line}: (${b.target}) ${b.reason}`)).toEqual([]);
  });

  it('links every docs page from the README', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const linked = new Set(markdownLinks(readme).map((l) => l.target.split('#')[0]));
    const pages = files.filter((f) => f.startsWith('docs/'));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('keeps the README at most 16 KB', () => {
    expect(statSync(join(REPO_ROOT, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('shows the two set-up commands in the README within its first 60 lines', () => {
    const top = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
      .split('\n')
      .slice(0, 60)
      .join('\n');
    expect(top).toContain('npm ci && npm start');
    expect(top).toContain('npm test');
  });
});

describe('Function: brokenLinks', () => {
  let root: string | undefined;
  const tree = (files: Record<string, string>): string => {
    root = mkdtempSync(join(tmpdir(), 'telealert-docs-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  };
  afterEach(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  it('names the file, the line and the link of a relative link to a missing file', () => {
    const dir = tree({ 'README.md': '# t\n\nSee [deploying](docs/deploy.md).\n' });
    expect(brokenLinks(dir, 'README.md')).toEqual([
      {
        file: 'README.md',
        line: 3,
        target: 'docs/deploy.md',
        reason: 'no such file: docs/deploy.md',
      },
    ]);
  });

  it('resolves a link from the folder of the file it is in', () => {
    const dir = tree({
      'README.md': '# t\n',
      'docs/a.md': '# a\n\n[front](../README.md), [b](b.md), [wrong](README.md)\n',
      'docs/b.md': '# b\n',
    });
    expect(brokenLinks(dir, 'docs/a.md').map((b) => b.target)).toEqual(['README.md']);
  });

  it('names an anchor that matches no heading of the target, and of the same file', () => {
    const dir = tree({
      'README.md':
        '# Top\n\n[ok](docs/a.md#sms-to-india) [gone](docs/a.md#sms) [here](#top) [none](#nowhere)\n',
      'docs/a.md': '# A\n\n## SMS to India\n',
    });
    expect(brokenLinks(dir, 'README.md')).toEqual([
      {
        file: 'README.md',
        line: 3,
        target: 'docs/a.md#sms',
        reason: 'no heading with anchor #sms in docs/a.md',
      },
      {
        file: 'README.md',
        line: 3,
        target: '#nowhere',
        reason: 'no heading with anchor #nowhere in README.md',
      },
    ]);
  });

  it('leaves URLs, links inside code and links inside fenced blocks alone', () => {
    const dir = tree({
      'README.md': [
        '# t',
        '[site](https://example.com/x.md#y) [mail](mailto:a@example.com)',
        'in code: `[x](missing.md)`',
        '```',
        '[x](missing.md)',
        '```',
        '',
      ].join('\n'),
    });
    expect(brokenLinks(dir, 'README.md')).toEqual([]);
  });
});

describe('Function: githubSlug', () => {
  it.each([
    ['Rehearse it locally first (optional)', 'rehearse-it-locally-first-optional'],
    ['SMS: the sandbox and the spend limit', 'sms-the-sandbox-and-the-spend-limit'],
    ['Silences, acknowledgement and escalation', 'silences-acknowledgement-and-escalation'],
    ['`Errors-<function>`: a Lambda failed', 'errors-function-a-lambda-failed'],
    ['source_unavailable', 'source_unavailable'],
    ['Once per account and region: bootstrap', 'once-per-account-and-region-bootstrap'],
  ])('gives %j the anchor %j', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('suffixes a repeated heading -1, -2 in the order they appear, and skips code blocks', () => {
    const text = '# Deploy\n## Deploy\n```\n# Deploy\n```\n### Deploy\n';
    expect([...headingAnchors(text)]).toEqual(['deploy', 'deploy-1', 'deploy-2']);
  });
});
