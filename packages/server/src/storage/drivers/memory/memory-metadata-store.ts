import { distinctNames, packageHandle, type PackageRecords } from '../../package-handle.js';
import type {
  AccountStores,
  MetadataStore,
  PackageHandle,
  PackageMutation,
  PackageWrite,
  StoredPackage,
  TenantId,
} from '../../ports.js';
import { compareBytes, MemoryDatabase, memoryKey as key, type MemoryPackageWriteHook } from './memory-database.js';
import { MemorySessions } from './memory-sessions.js';
import { MemoryTenants } from './memory-tenants.js';
import { MemoryTokens } from './memory-tokens.js';
import { MemoryUsers } from './memory-users.js';

export { MemoryDatabase, type MemoryPackageWriteHook } from './memory-database.js';

/**
 * The metadata store in process memory: the packages, and the account stores on the same
 * database (memory-tenants.ts, memory-users.ts, …), nothing kept after the process. For tests of services and routes without a database, and for a registry that needs
 * no persistence. It passes the same contract suites as the SQLite and PostgreSQL drivers.
 */
export class MemoryMetadataStore implements MetadataStore, PackageRecords {
  readonly #db: MemoryDatabase;
  readonly #hooks: readonly MemoryPackageWriteHook[];
  readonly accounts: AccountStores;

  constructor(db: MemoryDatabase = new MemoryDatabase(), hooks: readonly MemoryPackageWriteHook[] = []) {
    this.#db = db;
    this.#hooks = hooks;
    this.accounts = {
      tenants: new MemoryTenants(db, hooks),
      users: new MemoryUsers(db),
      tokens: new MemoryTokens(db),
      sessions: new MemorySessions(db),
      credentialsVersion: () => db.credentialWrites,
      // Every store on the database sees every write: the version covers other "processes".
      credentialsVersionCoversOthers: true,
    };
  }

  async migrate(): Promise<void> {}
  async close(): Promise<void> {}
  async ping(): Promise<void> {}

  package(tenant: TenantId, name: string): PackageHandle {
    return packageHandle(this, tenant, name);
  }

  async getPackage(tenant: TenantId, name: string): Promise<StoredPackage | undefined> {
    const row = this.#db.packages.get(key(tenant, name));
    return row && (JSON.parse(row.json) as StoredPackage);
  }

  async versionsOfPackages(tenant: TenantId, names: readonly string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (const name of names) {
      const versions = Object.keys((await this.getPackage(tenant, name))?.document.versions ?? {});
      if (versions.length > 0) found.set(name, versions);
    }
    return found;
  }

  async updatePackage<T>(
    tenant: TenantId,
    name: string,
    mutate: (current: StoredPackage | undefined) => Promise<PackageMutation<T>> | PackageMutation<T>,
  ): Promise<T> {
    return this.#db.mutex.run(key(tenant, name), async () => {
      const { next, result } = await mutate(await this.getPackage(tenant, name));
      if (next === null) return result;
      // After the mutation's awaits: the tenant may have been deleted meanwhile.
      this.#db.requireLiveTenant(tenant);
      for (const hook of this.#hooks) hook.beforeWrite?.(tenant, name, next);
      this.#write(tenant, name, next);
      return result;
    });
  }

  async readPackages(tenant: TenantId, names: readonly string[]): Promise<Map<string, StoredPackage>> {
    const found = new Map<string, StoredPackage>();
    for (const name of names) {
      const pkg = await this.getPackage(tenant, name);
      if (pkg) found.set(name, pkg);
    }
    return found;
  }

  async writePackages(tenant: TenantId, writes: readonly PackageWrite[]): Promise<void> {
    // Each package's lock, as its update takes it, in one order for every batch: an update
    // waiting on its mutation cannot write over the batch afterwards.
    const keys = distinctNames(writes)
      .map((name) => key(tenant, name))
      .sort();
    const locked = (i: number): Promise<void> =>
      i === keys.length ? Promise.resolve(this.#writeAll(tenant, writes)) : this.#db.mutex.run(keys[i]!, () => locked(i + 1));
    await locked(0);
  }

  #writeAll(tenant: TenantId, writes: readonly PackageWrite[]): void {
    this.#db.requireLiveTenant(tenant);
    // Every check before any write, so a refusal writes nothing. Nothing between them yields: no
    // update lands in between.
    for (const hook of this.#hooks) {
      if (hook.beforeWrites) hook.beforeWrites(tenant, writes);
      else for (const { name, next } of writes) hook.beforeWrite?.(tenant, name, next);
    }
    for (const { name, next } of writes) this.#write(tenant, name, next);
  }

  #write(tenant: TenantId, name: string, next: StoredPackage): void {
    const stored: StoredPackage = {
      document: next.document,
      publishedVersions: next.publishedVersions,
      unpublished: next.unpublished,
    };
    this.#db.packages.set(key(tenant, name), { tenant, name, json: JSON.stringify(stored) });
    for (const hook of this.#hooks) hook.onWrite(tenant, name, JSON.parse(JSON.stringify(stored)) as StoredPackage);
  }

  async listPackageNames(tenant: TenantId, options: { includeUnpublished?: boolean } = {}): Promise<string[]> {
    const names: string[] = [];
    for (const row of this.#db.packages.values()) {
      if (row.tenant !== tenant) continue;
      if (!options.includeUnpublished && (JSON.parse(row.json) as StoredPackage).unpublished) continue;
      names.push(row.name);
    }
    return names.sort(compareBytes);
  }
}
