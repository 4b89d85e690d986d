import type { PackageDocument, VersionRecord } from '@pkg/protocol';
import type { TestRegistry } from '@pkg/testkit';

export interface SeedVersion {
  version: string;
  published?: string;
  fields?: Partial<VersionRecord>;
}

export interface SeedPackage {
  name: string;
  tenant?: string;
  description?: string;
  readme?: string;
  versions: SeedVersion[];
  distTags?: Record<string, string>;
  maintainers?: { name: string; email: string }[];
}

/**
 * Writes a package document straight through its package handle, as publishing would leave it,
 * so page tests can shape any document (deprecations, odd fields, hostile text).
 */
export async function seedPackage(registry: TestRegistry, pkg: SeedPackage): Promise<void> {
  const versions: Record<string, VersionRecord> = {};
  const time: Record<string, string> = {};
  for (const [i, v] of pkg.versions.entries()) {
    const published = v.published ?? new Date(Date.UTC(2024, 0, 1 + i)).toISOString();
    time[v.version] = published;
    versions[v.version] = {
      name: pkg.name,
      version: v.version,
      description: pkg.description ?? `${pkg.name} package`,
      dist: {
        tarball: `/${pkg.name}/-/${pkg.name}-${v.version}.tgz`,
        integrity: 'sha512-AAAA',
        shasum: '0000000000000000000000000000000000000000',
      },
      ...v.fields,
    };
  }
  const stamps = Object.values(time).sort();
  const latest = pkg.versions.at(-1)!.version;
  const document: PackageDocument = {
    _id: pkg.name,
    _rev: '1-seed',
    name: pkg.name,
    description: pkg.description ?? `${pkg.name} package`,
    'dist-tags': pkg.distTags ?? { latest },
    versions,
    time: { created: stamps[0]!, modified: stamps.at(-1)!, ...time },
    maintainers: pkg.maintainers ?? [{ name: 'alice', email: 'alice@example.com' }],
    readme: pkg.readme ?? `# ${pkg.name}\n`,
  };
  await registry.storage.packages.package(pkg.tenant ?? '', pkg.name).update(() => ({
    next: { document, publishedVersions: Object.keys(versions), unpublished: false },
    result: undefined,
  }));
}
