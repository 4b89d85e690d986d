/**
 * A failure of a project command the user can act on: a message for the `Error:` line and,
 * where one helps, a hint. `usage` marks a wrong invocation (exit code 2), not a failed run.
 */
export class ProjectError extends Error {
  readonly hint: string | undefined;
  readonly usage: boolean;

  constructor(message: string, options: { hint?: string; usage?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProjectError';
    this.hint = options.hint;
    this.usage = options.usage ?? false;
  }
}
