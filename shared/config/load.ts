import { basename } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { Config } from '../types/config';
import { ConfigError, type ConfigIssue } from './errors';
import { readRulesText, validateConfig } from './validate';

/** YAML (or JSON) text to plain data; syntax errors become issues with line and column. */
function readYaml(text: string): { data?: unknown; issues: ConfigIssue[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      issues: doc.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        const message =
          error.code === 'MULTIPLE_DOCS'
            ? 'the file holds several documents (a second ---): a rules file is one document'
            : (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
        return { path: '', message: `YAML: ${message}`, line, col };
      }),
    };
  }
  // Building the data can still fail (an alias to an anchor that is never set, an alias bomb):
  // the yaml library throws a ReferenceError then, which is the file's fault, not ours.
  try {
    return { data: doc.toJS({ maxAliasCount: 100 }), issues: [] };
  } catch (error) {
    return { issues: [{ path: '', message: `YAML: ${(error as Error).message}` }] };
  }
}

/**
 * A rules file's text (YAML or JSON) as plain data, before validation: what the stack converts
 * to JSON for the bundles.
 *
 * @throws ConfigError for a YAML syntax error (with line and column).
 */
export function readConfigData(text: string, fileName: string): unknown {
  const parsed = readYaml(text);
  if (parsed.issues.length > 0) throw new ConfigError(fileName, parsed.issues);
  return parsed.data;
}

/**
 * Validates a rules file (contract section 1) and returns it typed, with defaults filled and
 * deep-frozen. Synchronous: `cdk synth` calls it.
 *
 * Bounds beyond the contract: `api.timeout` 1s..60s; `sources.*.every` whole minutes, 1m..1d;
 * `samples` 1..60 with at least 5s between samples, and when `samples > 1` `every` at most 10m
 * (all samples run inside one Lambda invocation, capped at 15 minutes); `lookback` at least
 * `every` (or payments between two runs would be missed) and at most 31d; `health.after`
 * 1..100; `for`/`keepFiring` up to 7d; `repeat` 1m..7d. A channel with neither `sms` nor
 * `email` is allowed: its topic serves programmatic subscribers. `rules: []` is allowed.
 *
 * @throws ConfigError listing every issue at once, as `file: path: reason` lines.
 */
export function parseConfig(text: string, fileName: string): Config {
  return validateConfig(readConfigData(text, fileName), fileName);
}

/**
 * Reads and validates the rules file at `path` (see `parseConfig`). Issues name the file by
 * its base name, as users see it in their repository.
 *
 * @throws ConfigReadError when the file cannot be read; ConfigError when it is invalid.
 */
export function loadConfigFile(path: string): Config {
  return parseConfig(readRulesText(path), basename(path));
}
