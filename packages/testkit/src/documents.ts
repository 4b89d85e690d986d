import { createHash } from 'node:crypto';
import type { PackageDocument, Person, VersionRecord } from '@pkg/protocol';
import type { StoredPackage, Storage, TenantId } from '@pkg/server';

const DAY_MS = 86_400_000;

export interface VersionSpec {
  version: string;
  /** Publish time; default: spread one `versionIntervalDays` apart, ending at `lastPublish`. */
  publishedAt?: Date | string;
  deprecated?: string;
  /** Fields of this version's package.json that differ from the package-wide options. */
  manifest?: Record<string, unknown>;
}

export interface StoredPackageOptions {
  /** Default `['1.0.0']`. */
  versions?: (string | VersionSpec)[];
  description?: string;
  keywords?: string[];
  author?: string | Person;
  displayName?: string;
  license?: string;
  readme?: string;
  repository?: string;
  homepage?: string;
  bugs?: string;
  /** Unity editor version, `<major>.<minor>`. */
  unity?: string;
  dependencies?: Record<string, string>;
  /** Default: one maintainer, `alice`. */
  maintainers?: (string | Person)[];
  /** Deprecation message given to every version (npm deprecate of the whole package). */
  deprecated?: string;
  /** Default: `{latest: <highest version>}`. */
  distTags?: Record<string, string>;
  /** Publish time of the newest version; default: now. */
  lastPublish?: Date;
  versionIntervalDays?: number;
  /** A tombstone: the whole package was unpublished. */
  unpublished?: boolean;
}

/**
 * A stored package as publish leaves it (tarball URLs relative, `time` per version,
 * maintainers, `_npmUser`, dist with integrity), for seeding a registry through the store.
 */
export function buildStoredPackage(name: string, options: StoredPackageOptions = {}): StoredPackage {
  const specs = (options.versions ?? ['1.0.0']).map((v) => (typeof v === 'string' ? { version: v } : v));
  const maintainers = (options.maintainers ?? ['alice']).map((m) =>
    typeof m === 'string' ? { name: m, email: `${m}@example.com` } : m,
  );
  const lastPublish = (options.lastPublish ?? new Date()).getTime();
  const interval = (options.versionIntervalDays ?? 7) * DAY_MS;
  const time: Record<string, string> = {};
  const versions: Record<string, VersionRecord> = {};
  specs.forEach((spec, i) => {
    const publishedAt = spec.publishedAt ?? new Date(lastPublish - (specs.length - 1 - i) * interval);
    time[spec.version] = new Date(publishedAt).toISOString();
    const fakeTarball = Buffer.from(`${name}@${spec.version}`);
    const deprecated = spec.deprecated ?? options.deprecated;
    versions[spec.version] = {
      name,
      version: spec.version,
      ...(options.displayName !== undefined ? { displayName: options.displayName } : {}),
      description: options.description ?? `${name} package`,
      ...(options.keywords ? { keywords: options.keywords } : {}),
      ...(options.author !== undefined ? { author: options.author } : {}),
      license: options.license ?? 'MIT',
      ...(options.unity ? { unity: options.unity } : {}),
      ...(options.repository ? { repository: { type: 'git', url: options.repository } } : {}),
      ...(options.homepage ? { homepage: options.homepage } : {}),
      ...(options.bugs ? { bugs: { url: options.bugs } } : {}),
      dependencies: options.dependencies ?? {},
      ...(deprecated !== undefined ? { deprecated } : {}),
      ...spec.manifest,
      _id: `${name}@${spec.version}`,
      _npmUser: maintainers[0],
      maintainers,
      dist: {
        tarball: `${name}/-/${name}-${spec.version}.tgz`,
        integrity: `sha512-${createHash('sha512').update(fakeTarball).digest('base64')}`,
        shasum: createHash('sha1').update(fakeTarball).digest('hex'),
        fileCount: 2,
        unpackedSize: 1024,
      },
    };
  });
  const times = Object.values(time).sort();
  const highest = specs[specs.length - 1]!.version;
  const latest = versions[highest]!;
  const document: PackageDocument = {
    _id: name,
    _rev: `${specs.length}-${createHash('md5').update(name).digest('hex')}`,
    name,
    description: latest.description ?? '',
    'dist-tags': options.distTags ?? { latest: highest },
    versions,
    time: { created: times[0]!, modified: times[times.length - 1]!, ...time },
    maintainers,
    readme: options.readme ?? `# ${options.displayName ?? name}\n\n${latest.description ?? ''}\n`,
    readmeFilename: 'README.md',
    ...(options.keywords ? { keywords: options.keywords } : {}),
    ...(options.author !== undefined ? { author: options.author } : {}),
    ...(options.repository ? { repository: { type: 'git', url: options.repository } } : {}),
    ...(options.homepage ? { homepage: options.homepage } : {}),
    ...(options.bugs ? { bugs: { url: options.bugs } } : {}),
    license: options.license ?? 'MIT',
  };
  return { document, publishedVersions: Object.keys(versions), unpublished: options.unpublished ?? false };
}

/** Tenants seedPackage made sure of, per store: one tenant create per tenant, not per package. */
const createdTenants = new WeakMap<object, Set<TenantId>>();

/**
 * Writes a stored package through its package handle, as publish would (index included); a
 * tenant is created first when it does not exist and the registry part is given (stores write
 * nothing to a missing tenant).
 */
export async function seedPackage(
  storage: Pick<Storage, 'packages'> & Partial<Pick<Storage, 'bus' | 'registry'>>,
  pkg: StoredPackage,
  tenant: TenantId = '',
): Promise<void> {
  if (tenant !== '' && storage.registry && !createdTenants.get(storage.registry)?.has(tenant)) {
    await storage.registry.tenants.create({
      name: tenant,
      incarnation: 'seeded',
      createdAt: new Date(0).toISOString(),
      settings: {},
    });
    createdTenants.set(storage.registry, (createdTenants.get(storage.registry) ?? new Set()).add(tenant));
  }
  await storage.packages.package(tenant, pkg.document.name).update(() => ({ next: pkg, result: undefined }));
  // Announced as the registry's write services do, so that no node's caches keep what they held of it.
  await storage.bus?.publish(tenant, pkg.document.name);
}
