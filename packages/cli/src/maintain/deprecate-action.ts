/**
 * `pkg deprecate <name>[@range] <message>`: marks the matching versions deprecated (an empty
 * message lifts it), as `npm deprecate` does: the document is read, the versions' `deprecated`
 * fields are changed, and the document is sent back without attachments (the registry takes
 * only those fields).
 */
import semver from 'semver';
import type { CommandContext } from '../context.js';
import { ClientError } from '../errors/client-errors.js';
import type { CommandResult } from '../output/reporter.js';
import { success } from '../output/reporter.js';
import { plural } from '../output/format.js';
import { parsePackageRequest } from '../resolve/add-plan.js';

export async function deprecate(
  ctx: CommandContext,
  spec: string,
  message: string,
  registryFlag: string | undefined,
): Promise<CommandResult> {
  const { name, spec: range = '*' } = parsePackageRequest(spec);
  if (semver.validRange(range) === null) {
    throw new ClientError('USAGE', { problem: `'${range}' is not a version or range`, command: 'deprecate ' });
  }
  const registry = await ctx.registryUrl(registryFlag);
  const client = await ctx.registry(registry);
  const document = await client.packument(name);
  const versions = Object.keys(document.versions ?? {}).filter((v) => semver.valid(v));
  const matching = versions.filter((v) => semver.satisfies(v, range, { includePrerelease: true })).sort(semver.compare);
  if (matching.length === 0) {
    throw new ClientError('DEPRECATE_NO_MATCH', { name, range, versions: versions.sort(semver.compare).join(', ') || 'none' });
  }
  for (const version of matching) {
    // `''` lifts it: an absent field would leave it as it was.
    document.versions[version]!.deprecated = message;
  }
  await client.updateDocument(name, document);
  const what = message === '' ? 'no longer deprecated' : 'deprecated';
  const summary = `${plural(matching.length, 'version')} of ${name} ${what}: ${matching.join(', ')}`;
  return {
    json: { package: name, registry, versions: matching, deprecated: message === '' ? null : message, message: summary },
    text: [success(summary)],
  };
}
