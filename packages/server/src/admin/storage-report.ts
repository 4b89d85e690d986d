import { blobKeysOfVersion, packageOfBlobKey } from '../storage/blob-keys.js';
import type { Config } from '../config/config.js';
import {
  GLOBAL_TENANT,
  PACKAGES_PER_VERSIONS_QUERY,
  type AccountStores,
  type BlobStore,
  type PackageStore,
  type RegistryUsage,
  type StorageUsageStore,
  type TenantId,
} from '../storage/ports.js';

export interface PackageUsage {
  name: string;
  versions: number;
  /** Blobs (tarballs and provenance bundles) of its versions, and their bytes. */
  files: number;
  bytes: number;
}

export interface TenantUsage {
  /** `''` is the global registry. */
  tenant: TenantId;
  packages: number;
  versions: number;
  files: number;
  bytes: number;
  /** Blobs under the tenant that no version references (an interrupted publish), and their bytes. */
  orphanFiles: number;
  orphanBytes: number;
  /** Largest first. */
  byPackage: PackageUsage[];
  /** The quotas in force (0: none), the tenant's own or else the server's, and which. */
  quota: { bytes: number; packages: number; bytesFrom: QuotaSource; packagesFrom: QuotaSource };
  /**
   * What the quotas are checked against: the usage table each publish, unpublish and removal
   * keeps per version. It equals the walk's `bytes`/`packages` once every version is measured.
   */
  usage: RegistryUsage;
  /** Versions published before sizes were recorded, not yet in `usage` (the server measures them once it listens). */
  unmeasuredVersions: number;
}

/** Where a quota comes from: the tenant's own setting (`tenant set`), or the server's (`serve --quota-…`, config). */
export type QuotaSource = 'tenant' | 'server';

/**
 * `pkg-registry storage`: bytes and counts per tenant and per package, from one walk of the
 * blob store (sizes) and the package documents (which blobs are referenced). Reads only.
 */
export async function storageReport(
  storage: {
    registry: AccountStores;
    packages: PackageStore;
    blobs: BlobStore;
    usage: StorageUsageStore;
  },
  config: Pick<Config, 'quotaBytes' | 'quotaPackages'>,
): Promise<TenantUsage[]> {
  const records = await storage.registry.tenants.list();
  const tenants: TenantId[] = [GLOBAL_TENANT, ...records.map((tenant) => tenant.name)];
  const own = new Map(records.map((tenant) => [tenant.name, tenant.settings]));
  const usage = new Map<TenantId, TenantUsage>();
  const referenced = new Map<string, { tenant: TenantId; name: string }>();
  for (const tenant of tenants) {
    const entry: TenantUsage = {
      tenant,
      packages: 0,
      versions: 0,
      files: 0,
      bytes: 0,
      orphanFiles: 0,
      orphanBytes: 0,
      byPackage: [],
      quota: quotaOf(own.get(tenant) ?? {}, config),
      usage: await storage.usage.usage(tenant),
      unmeasuredVersions: (await storage.usage.unmeasured(tenant)).length,
    };
    usage.set(tenant, entry);
    const names = await storage.packages.listPackageNames(tenant);
    for (let from = 0; from < names.length; from += PACKAGES_PER_VERSIONS_QUERY) {
      const some = names.slice(from, from + PACKAGES_PER_VERSIONS_QUERY);
      const found = await storage.packages.versionsOfPackages(tenant, some);
      for (const name of some) {
        const versions = found.get(name) ?? [];
        entry.packages++;
        entry.versions += versions.length;
        entry.byPackage.push({ name, versions: versions.length, files: 0, bytes: 0 });
        for (const version of versions)
          for (const key of blobKeysOfVersion(tenant, name, version)) referenced.set(key, { tenant, name });
      }
    }
  }
  const packageIndex = new Map<string, PackageUsage>();
  for (const entry of usage.values()) for (const pkg of entry.byPackage) packageIndex.set(`${entry.tenant}\0${pkg.name}`, pkg);
  for await (const blob of storage.blobs.list()) {
    const owner = referenced.get(blob.key);
    if (owner) {
      const entry = usage.get(owner.tenant)!;
      entry.files++;
      entry.bytes += blob.size;
      const pkg = packageIndex.get(`${owner.tenant}\0${owner.name}`)!;
      pkg.files++;
      pkg.bytes += blob.size;
      continue;
    }
    const tenant = packageOfBlobKey(blob.key)?.tenant;
    const entry = tenant !== undefined ? usage.get(tenant) : undefined;
    if (entry) {
      entry.orphanFiles++;
      entry.orphanBytes += blob.size;
    }
  }
  for (const entry of usage.values()) entry.byPackage.sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
  return [...usage.values()];
}

function quotaOf(
  settings: { quotaBytes?: number; quotaPackages?: number },
  config: Pick<Config, 'quotaBytes' | 'quotaPackages'>,
): TenantUsage['quota'] {
  return {
    bytes: settings.quotaBytes ?? config.quotaBytes,
    packages: settings.quotaPackages ?? config.quotaPackages,
    bytesFrom: settings.quotaBytes !== undefined ? 'tenant' : 'server',
    packagesFrom: settings.quotaPackages !== undefined ? 'tenant' : 'server',
  };
}
