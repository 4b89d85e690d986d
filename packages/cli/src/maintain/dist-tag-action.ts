/** `pkg dist-tag add|rm|ls`: a package's dist-tags on the registry in effect, as npm's command. */
import semver from 'semver';
import { checkPackageName } from '@pkg/protocol';
import type { CommandContext } from '../context.js';
import { ClientError } from '../errors/client-errors.js';
import type { CommandResult } from '../output/reporter.js';
import { success } from '../output/reporter.js';

function packageName(name: string): string {
  const check = checkPackageName(name);
  if (!check.ok) throw new ClientError('INVALID_PACKAGE_NAME', { name, rule: check.rule });
  return name;
}

/** A tag cannot look like a version or a range: npm would read `pkg add name@<tag>` as one. */
function tagName(tag: string): string {
  if (!/^[A-Za-z][A-Za-z0-9._-]*$/.test(tag) || semver.validRange(tag) !== null) {
    throw new ClientError('DIST_TAG_USAGE', {
      problem: `Invalid tag '${tag}': a dist-tag is a word such as beta, and cannot look like a version or range`,
    });
  }
  return tag;
}

export async function distTag(
  ctx: CommandContext,
  action: string,
  args: readonly string[],
  registryFlag: string | undefined,
): Promise<CommandResult> {
  const registry = await ctx.registryUrl(registryFlag);
  const usage = (problem: string) => new ClientError('DIST_TAG_USAGE', { problem });
  if (action === 'ls') {
    if (args.length !== 1) throw usage('pkg dist-tag ls takes one package name');
    const name = packageName(args[0]!);
    const tags = await (await ctx.registry(registry)).distTags(name);
    const entries = Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : 1));
    return {
      json: { package: name, registry, dist_tags: Object.fromEntries(entries) },
      text: entries.length > 0 ? entries.map(([tag, version]) => `${tag}: ${version}`) : [`${name} has no dist-tags`],
    };
  }
  if (action === 'add') {
    if (args.length !== 2) throw usage('pkg dist-tag add takes <name>@<version> and a tag');
    const spec = args[0]!;
    const at = spec.indexOf('@');
    if (at <= 0 || semver.valid(spec.slice(at + 1)) !== spec.slice(at + 1)) {
      throw usage(`Give the package as <name>@<version> with an exact version, not '${spec}'`);
    }
    const name = packageName(spec.slice(0, at));
    const version = spec.slice(at + 1);
    const tag = tagName(args[1]!);
    const client = await ctx.registry(registry);
    // The version must exist: the registry refuses a tag on a missing one, but not with its name.
    await client.versionRecord(name, version);
    await client.setDistTag(name, tag, version);
    return {
      json: { package: name, registry, tag, version, message: `${tag} → ${name}@${version}` },
      text: [success(`${tag} → ${name}@${version}`)],
    };
  }
  if (action === 'rm') {
    if (args.length !== 2) throw usage('pkg dist-tag rm takes a package name and a tag');
    const name = packageName(args[0]!);
    const tag = tagName(args[1]!);
    if (tag === 'latest') throw usage('The latest tag cannot be removed: point it at another version with pkg dist-tag add');
    await (await ctx.registry(registry)).removeDistTag(name, tag);
    return {
      json: { package: name, registry, tag, message: `${tag} removed from ${name}` },
      text: [success(`${tag} removed from ${name}`)],
    };
  }
  throw usage(`Unknown dist-tag action '${action}'`);
}
