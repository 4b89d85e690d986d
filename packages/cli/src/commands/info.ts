import { ClientError } from '../errors/client-errors.js';
import { REGISTRY_OPTION, type Command } from './types.js';

interface InfoOptions {
  registry?: string;
}

export const info: Command<InfoOptions> = {
  name: 'info',
  summary: "Show a package's metadata, versions and dist-tags",
  description:
    'Show description, latest and other dist-tags, versions, license, author, minimum Unity version, dependencies, tarball and integrity of a package version (default: latest). Inside a project, the package is asked of the registry the project names for it (its scopedRegistries), with that registry’s credentials; --registry overrides.',
  arguments: [
    {
      name: 'package',
      description: 'package name, optionally with @<version>, @<range> (as npm view: ^1.2, 1.x) or @<dist-tag>',
      required: true,
    },
  ],
  options: [REGISTRY_OPTION],
  examples: [
    'pkg info com.vendor.input',
    'pkg info com.vendor.input@1.2.0',
    "pkg info 'com.vendor.input@^1.2'",
    'pkg info com.vendor.input@beta --json',
  ],
  async run(ctx, { args, options }) {
    const spec = String(args.package);
    const at = spec.lastIndexOf('@');
    const name = at > 0 ? spec.slice(0, at) : spec;
    const wanted = at > 0 ? spec.slice(at + 1) : '';
    const { checkPackageName, sortVersions } = await import('@pkg/protocol');
    const check = checkPackageName(name);
    if (!check.ok) throw new ClientError('INVALID_PACKAGE_NAME', { name, rule: check.rule });
    if (at > 0 && wanted === '') throw new ClientError('MISSING_VERSION', { spec });

    const inEffect = await ctx.registryUrl(options.registry);
    // Inside a project, a name comes from the registry the project names for it, as in every other command.
    let registry = inEffect;
    let namedBy: string | undefined;
    if (options.registry === undefined) {
      const { projectView, projectRegistryUrl } = await import('../project/project-view.js');
      const view = await projectView(ctx, inEffect);
      const routed = view?.registryFor(name);
      if (view && routed && routed !== inEffect) {
        registry = projectRegistryUrl(routed, view.manifest);
        namedBy = view.manifest;
      }
    }
    const client = await ctx.registry(registry);
    const doc = await client.packument(name);
    const distTags = doc['dist-tags'] ?? {};
    const version =
      wanted === ''
        ? distTags.latest
        : (distTags[wanted] ?? (await resolveRange(wanted, distTags.latest, Object.keys(doc.versions ?? {}))));
    const record = version ? doc.versions?.[version] : undefined;
    if (!record) {
      throw wanted
        ? new ClientError('VERSION_NOT_FOUND', { version: wanted, name })
        : new ClientError('NO_LATEST_VERSION', { name });
    }
    const { infoReport } = await import('../output/info-report.js');
    const report = infoReport(doc, record, sortVersions(Object.keys(doc.versions ?? {})));
    return {
      json: { ...report.json, registry },
      text: [...report.text, ...(namedBy ? [`Registry: ${registry} (from ${namedBy})`] : [])],
    };
  },
};

/**
 * A version or range as `npm view` resolves it (npm-pick-manifest): an exact version as it is;
 * for a range, `latest` when it satisfies the range, else the highest version that does.
 */
async function resolveRange(wanted: string, latest: string | undefined, versions: string[]): Promise<string> {
  const semver = (await import('semver')).default;
  if (semver.valid(wanted) || semver.validRange(wanted) === null) return wanted;
  if (latest && semver.satisfies(latest, wanted)) return latest;
  return semver.maxSatisfying(versions, wanted) ?? wanted;
}
