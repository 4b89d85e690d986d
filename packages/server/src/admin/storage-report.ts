import { blobKeysOfVersion, packageOfBlobKey } from '../storage/blob-keys.js';
import { GLOBAL_TENANT, type BlobStore, type PackageStore, type AccountStores, type TenantId } from '../storage/ports.js';

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
}

/**
 * `pkg-registry storage`: bytes and counts per tenant and per package, from one walk of the
 * blob store (sizes) and the package documents (which blobs are referenced). Reads only.
 */
export async function storageReport(storage: {
  registry: AccountStores;
  packages: PackageStore;
  blobs: BlobStore;
}): Promise<TenantUsage[]> {
  const tenants: TenantId[] = [GLOBAL_TENANT, ...(await storage.registry.tenants.list()).map((tenant) => tenant.name)];
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
    };
    usage.set(tenant, entry);
    for (const name of await storage.packages.listPackageNames(tenant)) {
      const versions = await storage.packages.package(tenant, name).versions();
      entry.packages++;
      entry.versions += versions.length;
      entry.byPackage.push({ name, versions: versions.length, files: 0, bytes: 0 });
      for (const version of versions)
        for (const key of blobKeysOfVersion(tenant, name, version)) referenced.set(key, { tenant, name });
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
