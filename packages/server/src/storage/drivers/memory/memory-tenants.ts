import type { TenantId, TenantRecord, TenantSettings, TenantStore } from '../../ports.js';
import { compareBytes, copy, type MemoryDatabase, type MemoryPackageWriteHook } from './memory-database.js';

/** Tenants in a memory database; deleting one empties every map of the database of it. */
export class MemoryTenants implements TenantStore {
  readonly #db: MemoryDatabase;
  readonly #hooks: readonly MemoryPackageWriteHook[];

  constructor(db: MemoryDatabase, hooks: readonly MemoryPackageWriteHook[]) {
    this.#db = db;
    this.#hooks = hooks;
  }

  async get(name: TenantId): Promise<TenantRecord | undefined> {
    const tenant = this.#db.tenants.get(name);
    return tenant && copy(tenant);
  }

  async list(): Promise<TenantRecord[]> {
    return [...this.#db.tenants.values()].sort((a, b) => compareBytes(a.name, b.name)).map(copy);
  }

  async create(tenant: TenantRecord): Promise<boolean> {
    if (this.#db.tenants.has(tenant.name)) return false;
    this.#db.tenants.set(tenant.name, copy(tenant));
    this.#db.credentialWrites++;
    return true;
  }

  async updateSettings(name: TenantId, settings: TenantSettings): Promise<boolean> {
    const tenant = this.#db.tenants.get(name);
    if (!tenant) return false;
    tenant.settings = copy(settings);
    this.#db.credentialWrites++;
    return true;
  }

  async delete(name: TenantId): Promise<boolean> {
    const db = this.#db;
    db.credentialWrites++;
    if (!db.tenants.delete(name)) return false;
    for (const map of [db.users, db.tokens, db.sessions, db.packages] as Map<string, unknown>[]) {
      for (const k of map.keys()) if (k.startsWith(`${name}\0`)) map.delete(k);
    }
    for (const hook of this.#hooks) hook.onTenantDelete?.(name);
    return true;
  }
}
