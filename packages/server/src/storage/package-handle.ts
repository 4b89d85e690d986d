import type { PackageHandle, PackageMutator, PackageWrite, StoredPackage, TenantId } from './ports.js';

/**
 * What a metadata driver implements of each package, by tenant and name; `PackageStore.package`
 * binds it to one package as a handle. The rules are those of `PackageHandle`.
 */
export interface PackageRecords {
  getPackage(tenant: TenantId, name: string): Promise<StoredPackage | undefined>;
  updatePackage<T>(tenant: TenantId, name: string, mutate: PackageMutator<T>): Promise<T>;
}

/**
 * A package's handle on a driver. It holds the names only: the lock is taken by `update` (the
 * driver's per-package mutex, and on PostgreSQL its advisory lock), so a handle is free to make,
 * keep or drop.
 */
class BoundPackage implements PackageHandle {
  readonly #records: PackageRecords;

  constructor(
    records: PackageRecords,
    readonly tenant: TenantId,
    readonly name: string,
  ) {
    this.#records = records;
  }

  read(): Promise<StoredPackage | undefined> {
    return this.#records.getPackage(this.tenant, this.name);
  }

  update<T>(mutate: PackageMutator<T>): Promise<T> {
    return this.#records.updatePackage(this.tenant, this.name, mutate);
  }
}

export function packageHandle(records: PackageRecords, tenant: TenantId, name: string): PackageHandle {
  return new BoundPackage(records, tenant, name);
}

/** Rows of (package name, version), as a SQL driver reads them, grouped by package. */
export function groupVersions(rows: readonly { name: string; version: string }[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const { name, version } of rows) {
    const versions = byName.get(name);
    if (versions) versions.push(version);
    else byName.set(name, [version]);
  }
  return byName;
}

/** The names of a `writePackages` call, refusing a name given twice (which of its states would land?). */
export function distinctNames(writes: readonly PackageWrite[]): string[] {
  const names = writes.map((write) => write.name);
  if (new Set(names).size !== names.length) throw new Error('writePackages: a package is named twice');
  return names;
}
