/** One problem in a timeline file, at a 1-based line. */
export interface TimelineIssue {
  readonly line: number;
  readonly message: string;
}

/**
 * A timeline file that cannot be replayed. `issues` holds every bad line; `message` is each as
 * `file:line: reason` on its own line, ready for stderr.
 */
export class TimelineError extends Error {
  constructor(
    readonly fileName: string,
    readonly issues: readonly TimelineIssue[],
    options?: ErrorOptions,
  ) {
    super(issues.map((issue) => `${fileName}:${issue.line}: ${issue.message}`).join('\n'), options);
    this.name = 'TimelineError';
  }
}
