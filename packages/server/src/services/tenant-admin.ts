import { randomBytes } from 'node:crypto';
import type { BlobStore, InvalidationBus, PackageStore, AccountStores, TenantRecord, TenantSettings } from '../storage/ports.js';
import { tenantNameProblem } from './tenant-names.js';
import { WHOLE_TENANT } from './tenant-service.js';

/** Why an admin operation could not be done: reported to the operator, exit code 1. */
export class AdminError extends Error {
  override name = 'AdminError';
}

/** A usage mistake (a name that can never be valid): exit code 2. */
export class AdminUsageError extends Error {
  override name = 'AdminUsageError';
}

/** Creating, listing, configuring and deleting tenant registries (the admin command line). */
export class TenantAdmin {
  readonly #registry: AccountStores;
  readonly #packages: PackageStore;
  readonly #blobs: BlobStore;
  readonly #bus: InvalidationBus | undefined;
  readonly #now: () => Date;

  constructor(
    stores: { registry: AccountStores; packages: PackageStore; blobs: BlobStore; bus?: InvalidationBus },
    now: () => Date = () => new Date(),
  ) {
    this.#registry = stores.registry;
    this.#packages = stores.packages;
    this.#blobs = stores.blobs;
    this.#bus = stores.bus;
    this.#now = now;
  }

  async create(name: string, settings: TenantSettings): Promise<TenantRecord> {
    const problem = tenantNameProblem(name);
    if (problem) throw new AdminUsageError(`invalid tenant name '${name}': ${problem}`);
    const incarnation = randomBytes(16).toString('hex');
    const record: TenantRecord = { name, incarnation, createdAt: this.#now().toISOString(), settings };
    if (!(await this.#registry.tenants.create(record))) throw new AdminError(`tenant '${name}' already exists`);
    await this.#announce(name);
    return record;
  }

  list(): Promise<TenantRecord[]> {
    return this.#registry.tenants.list();
  }

  /** Changes some settings; `null` for a key removes the tenant's own value (the server's applies). */
  async configure(name: string, changes: Record<string, unknown>): Promise<TenantRecord> {
    const tenant = await this.require(name);
    const settings: Record<string, unknown> = { ...tenant.settings };
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete settings[key];
      else settings[key] = value;
    }
    await this.#registry.tenants.updateSettings(name, settings);
    await this.#announce(name);
    return { ...tenant, settings: settings };
  }

  /** Deletes the tenant with its users, tokens, packages and tarballs. */
  async delete(name: string): Promise<{ users: number; packages: number; tarballs: number }> {
    await this.require(name);
    const users = (await this.#registry.users.list(name)).length;
    const packages = (await this.#packages.listPackageNames(name)).length;
    if (!(await this.#registry.tenants.delete(name))) throw new AdminError(`tenant '${name}' does not exist`);
    await this.#announce(name);
    // Tarball keys start with the tenant's label (storage/blob-keys.ts); the metadata is gone, so
    // these are unreferenced now.
    let tarballs = 0;
    for await (const blob of this.#blobs.list()) {
      if (blob.key.startsWith(`${name}/`)) {
        await this.#blobs.delete(blob.key);
        tarballs++;
      }
    }
    return { users, packages, tarballs };
  }

  /**
   * Tells the servers sharing the store (scale-out: over Redis or PostgreSQL) that the tenant
   * changed, so that none serves it from what it remembers. On SQLite the server sees the
   * commit itself (the database's data version moves).
   */
  async #announce(name: string): Promise<void> {
    await this.#bus?.publish(name, WHOLE_TENANT);
  }

  async require(name: string): Promise<TenantRecord> {
    const problem = tenantNameProblem(name);
    if (problem) throw new AdminUsageError(`invalid tenant name '${name}': ${problem}`);
    const tenant = await this.#registry.tenants.get(name);
    if (!tenant) throw new AdminError(`tenant '${name}' does not exist`);
    return tenant;
  }
}
