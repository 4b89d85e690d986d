/**
 * The `checkoutCommand` setting as a `CheckoutRunner`: `p4 edit {files}` (or `cm co {files}`)
 * run in the project on the read-only files a command is about to change.
 */
import type { Deps } from '../deps.js';
import { checkoutCommandLine, type CheckoutRunner } from '../io/read-only.js';
import { ClientError } from '../errors/client-errors.js';
import type { Reporter } from '../output/reporter.js';

/** Output shown of a failed checkout: its last lines say why. */
const SHOWN = 500;

export function checkoutRunner(
  template: string,
  project: string,
  deps: Pick<Deps, 'runShell' | 'platform'>,
  reporter: Reporter,
): CheckoutRunner | null {
  if (template === '') return null;
  return async (files) => {
    const command = checkoutCommandLine(template, files, deps.platform);
    reporter.debug(`Running checkoutCommand: ${command}`);
    const outcome = await deps.runShell(command, project).catch((err: Error) => {
      throw new ClientError('CHECKOUT_FAILED', { status: err.message, command, output: '' }, { cause: err });
    });
    if (outcome.status !== 0) {
      const output = outcome.output.trim();
      throw new ClientError('CHECKOUT_FAILED', {
        status: outcome.signal !== null ? `ended by ${outcome.signal}` : `exit ${outcome.status}`,
        command,
        output: output === '' ? '' : `It said: ${output.slice(-SHOWN)}`,
      });
    }
  };
}
