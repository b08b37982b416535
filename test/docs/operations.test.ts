import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../shared/config/load';
import { SHIPPED_CONFIG, synthStack } from '../infra/helpers';
import { headingAnchors } from './markdown';

const RUNBOOK_PATH = join(import.meta.dirname, '..', '..', 'docs', 'operations.md');

/**
 * The runbook names what the stack really creates: checked against a synth of the shipped
 * rules file (bundling skipped), so a renamed alarm or widget fails here, not at 3 a.m.
 */
describe('Documentation: the on-call runbook', () => {
  const runbook = readFileSync(RUNBOOK_PATH, 'utf8');
  const anchors = headingAnchors(runbook);
  const config = loadConfigFile(SHIPPED_CONFIG);
  const { stack, template } = synthStack(SHIPPED_CONFIG);

  /** `DeadMansSwitch-live_calls` -> `DeadMansSwitch-<source>`, `SmsFailed-oncall` -> `...-<channel>`. */
  const generic = (id: string): string =>
    id
      .replace(/-(live_calls|payments)$/, '-<source>')
      .replace(
        new RegExp(`^SmsFailed-(${Object.keys(config.channels).join('|')})$`),
        'SmsFailed-<channel>',
      );

  it('has a section for every alarm the stack creates', () => {
    const ids = [
      ...new Set(stack.alerting.monitoring.alarms.map((alarm) => generic(alarm.node.id))),
    ];
    expect(ids.length).toBeGreaterThanOrEqual(7);
    const missing = ids.filter(
      (id) =>
        ![...anchors].some((anchor) => anchor.startsWith(id.toLowerCase().replace(/[<>]/g, ''))),
    );
    expect(missing).toEqual([]);
  });

  it('has a section for every shipped rule and both built-in alerts', () => {
    const rules = [
      ...config.rules.map((rule) => rule.name),
      'source_unavailable',
      'too_many_alerts',
    ];
    expect(rules.filter((rule) => !anchors.has(rule))).toEqual([]);
  });

  it('reads every dashboard widget the stack draws', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboards);
    const titles = [...body.matchAll(/\\"title\\":\\"(.*?)\\"/g)].map((m) => m[1] as string);
    expect(titles.length).toBeGreaterThanOrEqual(10);
    expect(titles.filter((title) => !runbook.includes(`| ${title} |`))).toEqual([]);
  });

  it('names the token parameter of the shipped rules file', () => {
    expect(runbook).toContain(`--name ${config.api.tokenParameter} `);
  });

  it('never puts the API token on a command line, where shell history and ps keep it', () => {
    const docs = join(import.meta.dirname, '..', '..', 'docs');
    const pages = [
      join(docs, '..', 'README.md'),
      ...readdirSync(docs)
        .filter((name) => name.endsWith('.md'))
        .map((name) => join(docs, name)),
    ];
    const offending = pages.flatMap((page) =>
      readFileSync(page, 'utf8')
        .split('\n')
        .filter(
          (line) =>
            /--value\s+(?!file:\/\/)\S/.test(line) || /TELEALERT_TOKEN=['"]?[^'"$\s]/.test(line),
        )
        .map((line) => `${page}: ${line.trim()}`),
    );
    expect(offending).toEqual([]);
  });
});
