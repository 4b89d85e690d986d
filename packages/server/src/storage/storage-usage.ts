import { ProtocolError } from '@pkg/protocol';
import { blobKeysOfVersion } from './blob-keys.js';
import type { BlobStore, RegistryUsage, StoredPackage, TenantId, UsageLimit, VersionUsage } from './ports.js';

/**
 * A publish that would take a registry past one of its quotas. Thrown before anything is
 * written, or from inside the write's transaction (which then rolls back): nothing of the
 * version remains. The message names the quota and the usage, since npm prints only it.
 */
export class QuotaExceededError extends ProtocolError {
  constructor(details: string) {
    super('QUOTA_EXCEEDED', details);
  }
}

/** The quota error of a registry whose usage would go from `before` to `after`, or undefined. */
export function quotaProblem(
  tenant: TenantId,
  before: RegistryUsage,
  after: Pick<RegistryUsage, 'bytes' | 'packages'>,
  limit: UsageLimit | undefined,
  /** The size of what is published is not known yet (checked before its tarball). */
  sizeUnknown = false,
): QuotaExceededError | undefined {
  const where = tenant === '' ? 'This registry' : `The registry '${tenant}'`;
  // Only growth is refused: an administrator may lower a quota below the usage, and the
  // registry then takes new versions again once removals bring it under.
  if (limit?.packages && after.packages > before.packages && after.packages > limit.packages) {
    return new QuotaExceededError(
      `${where} has reached its quota of ${limit.packages} packages (${before.packages} in use): publish a new version of an existing package, or ask the administrator to raise quotaPackages`,
    );
  }
  if (limit?.bytes && after.bytes > before.bytes && after.bytes > limit.bytes) {
    const adds = sizeUnknown ? 'nothing is left for another tarball' : `this publish adds ${after.bytes - before.bytes}`;
    return new QuotaExceededError(
      `${where} has a storage quota of ${limit.bytes} bytes (${bytesText(limit.bytes)}); ${before.bytes} bytes (${bytesText(before.bytes)}) are in use and ${adds}: remove old versions, or ask the administrator to raise quotaBytes`,
    );
  }
  return undefined;
}

/** What a write does to one package's usage rows (the drivers apply it in the write's transaction). */
export interface PackageUsageWrite {
  /** Versions whose rows go: no longer in the document (unpublished, removed by retention). */
  removed: string[];
  /** Rows written: versions the write adds, with their sizes. */
  added: [string, VersionUsage][];
}

/**
 * The change of one package's usage rows: rows of versions no longer in the document go, and
 * versions the write measured get theirs. `existing` are the versions with rows now.
 */
export function packageUsageWrite(pkg: StoredPackage, existing: readonly string[]): PackageUsageWrite {
  const live = new Set(pkg.unpublished ? [] : Object.keys(pkg.document.versions));
  const removed = existing.filter((version) => !live.has(version));
  const added = Object.entries(pkg.usage?.added ?? {}).filter(([version]) => live.has(version));
  return { removed, added };
}

/** The registry's usage after a package's rows change from `old` to `next` (sizes by version). */
export function usageAfter(
  before: RegistryUsage,
  old: ReadonlyMap<string, VersionUsage>,
  next: ReadonlyMap<string, VersionUsage>,
): RegistryUsage {
  const sum = (rows: ReadonlyMap<string, VersionUsage>, field: 'bytes' | 'files') =>
    [...rows.values()].reduce((total, row) => total + row[field], 0);
  return {
    bytes: before.bytes - sum(old, 'bytes') + sum(next, 'bytes'),
    files: before.files - sum(old, 'files') + sum(next, 'files'),
    packages: before.packages - (old.size > 0 ? 1 : 0) + (next.size > 0 ? 1 : 0),
  };
}

/** The rows of a package after `write`. */
export function rowsAfter(old: ReadonlyMap<string, VersionUsage>, write: PackageUsageWrite): Map<string, VersionUsage> {
  const next = new Map(old);
  for (const version of write.removed) next.delete(version);
  for (const [version, usage] of write.added) next.set(version, usage);
  return next;
}

/**
 * The blobs of versions as the blob store holds them now (copies, `storage recount`); versions
 * whose tarball is absent, or that are served from an uplink (an absolute tarball URL), are left out.
 */
export async function measureVersions(
  blobs: BlobStore,
  tenant: TenantId,
  name: string,
  pkg: StoredPackage,
  versions: readonly string[],
): Promise<Record<string, VersionUsage>> {
  const measured: Record<string, VersionUsage> = {};
  for (const version of versions) {
    const tarball = pkg.document.versions[version]?.dist.tarball;
    if (tarball === undefined || /^https?:\/\//i.test(tarball)) continue;
    const usage = { bytes: 0, files: 0 };
    for (const key of blobKeysOfVersion(tenant, name, version)) {
      const info = await blobs.stat(key);
      if (!info) continue;
      usage.bytes += info.size;
      usage.files++;
    }
    if (usage.files > 0) measured[version] = usage;
  }
  return measured;
}

export const NO_USAGE: RegistryUsage = Object.freeze({ bytes: 0, files: 0, packages: 0 });

function bytesText(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
