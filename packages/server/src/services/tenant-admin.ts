import type { BlobStore, MetadataStore, TenantRecord, TenantSettings } from '../storage/ports.js';
import { tenantNameProblem } from './tenant-names.js';

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
  readonly #metadata: MetadataStore;
  readonly #blobs: BlobStore;
  readonly #now: () => Date;

  constructor(metadata: MetadataStore, blobs: BlobStore, now: () => Date = () => new Date()) {
    this.#metadata = metadata;
    this.#blobs = blobs;
    this.#now = now;
  }

  async create(name: string, settings: TenantSettings): Promise<TenantRecord> {
    const problem = tenantNameProblem(name);
    if (problem) throw new AdminUsageError(`invalid tenant name '${name}': ${problem}`);
    const record: TenantRecord = { name, createdAt: this.#now().toISOString(), settings };
    if (!(await this.#metadata.createTenant(record))) throw new AdminError(`tenant '${name}' already exists`);
    return record;
  }

  list(): Promise<TenantRecord[]> {
    return this.#metadata.listTenants();
  }

  /** Changes some settings; `null` for a key removes the tenant's own value (the server's applies). */
  async configure(name: string, changes: Record<string, unknown>): Promise<TenantRecord> {
    const tenant = await this.require(name);
    const settings: Record<string, unknown> = { ...tenant.settings };
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete settings[key];
      else settings[key] = value;
    }
    await this.#metadata.updateTenantSettings(name, settings as TenantSettings);
    return { ...tenant, settings: settings as TenantSettings };
  }

  /** Deletes the tenant with its users, tokens, packages and tarballs. */
  async delete(name: string): Promise<{ users: number; packages: number; tarballs: number }> {
    await this.require(name);
    const users = (await this.#metadata.listUsers(name)).length;
    const packages = (await this.#metadata.listPackageNames(name)).length;
    if (!(await this.#metadata.deleteTenant(name))) throw new AdminError(`tenant '${name}' does not exist`);
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

  async require(name: string): Promise<TenantRecord> {
    const problem = tenantNameProblem(name);
    if (problem) throw new AdminUsageError(`invalid tenant name '${name}': ${problem}`);
    const tenant = await this.#metadata.getTenant(name);
    if (!tenant) throw new AdminError(`tenant '${name}' does not exist`);
    return tenant;
  }
}
