/** How a failure is reported: the catalogue's entry filled in, or an unknown error as our bug. */
import { ClientError, EXIT, type ClientErrorCode, type ExitCode } from '../errors/client-errors.js';

/** What the reporter prints for a failure. */
export interface ErrorReport {
  code: ClientErrorCode | 'INTERNAL';
  message: string;
  hint?: string;
  exitCode: ExitCode;
}

/** Turns anything thrown into a report; unknown errors are our bug and say so, without a stack. */
export function toErrorReport(err: unknown): ErrorReport {
  if (err instanceof ClientError) {
    return { code: err.code, message: err.message, exitCode: err.exitCode, ...(err.hint ? { hint: err.hint } : {}) };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    code: 'INTERNAL',
    message: `Unexpected error: ${message}`,
    hint: 'This is a bug in pkg; run again with --verbose and report it.',
    exitCode: EXIT.FAILED,
  };
}
