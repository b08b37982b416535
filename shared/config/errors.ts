/** One problem found in a rules file: where it is (`rules[2].where.amount_paid`) and why. */
export interface ConfigIssue {
  /** Dotted path with `[i]` for list items; empty for the document itself. */
  readonly path: string;
  readonly message: string;
  /** Set for YAML syntax errors, which have a position but no path yet. */
  readonly line?: number;
  readonly col?: number;
}

/** Formats one issue as `file: path: reason` (or `file:line:col: reason` for syntax errors). */
export function formatIssue(fileName: string, issue: ConfigIssue): string {
  if (issue.line !== undefined) {
    return `${fileName}:${issue.line}:${issue.col ?? 1}: ${issue.message}`;
  }
  return issue.path === ''
    ? `${fileName}: ${issue.message}`
    : `${fileName}: ${issue.path}: ${issue.message}`;
}

/**
 * The rules file is unusable. `issues` holds every problem found (never only the first);
 * `message` lists them one per line, ready to print.
 */
export class ConfigError extends Error {
  constructor(
    readonly fileName: string,
    readonly issues: readonly ConfigIssue[],
    options?: ErrorOptions,
  ) {
    super(issues.map((issue) => formatIssue(fileName, issue)).join('\n'), options);
    this.name = 'ConfigError';
  }
}

/** The rules file could not be read at all (missing, a directory, no permission). */
export class ConfigReadError extends ConfigError {
  constructor(fileName: string, reason: string, options?: ErrorOptions) {
    super(fileName, [{ path: '', message: `cannot read the rules file: ${reason}` }], options);
    this.name = 'ConfigReadError';
  }
}

/** Formats a path as the user wrote it: `rules[2].where.amount_paid`, `channels["on call"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else {
      const key = String(part);
      if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) text += text === '' ? key : `.${key}`;
      else text += `[${JSON.stringify(key)}]`;
    }
  }
  return text;
}

/** The validated config contains a value JSON would not give back as it is. */
export class ConfigNotSerialisableError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(
      `the validated config cannot be shipped as JSON: ${path || '(root)'} ${reason}; ` +
        'keep Config plain data (shared/types/config.ts) or serialise that value explicitly',
    );
    this.name = 'ConfigNotSerialisableError';
  }
}
