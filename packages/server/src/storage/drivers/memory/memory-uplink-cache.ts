import type { TenantId, UplinkCacheRecord, UplinkCacheStore } from '../../ports.js';
import type { MemoryPackageWriteHook } from './memory-metadata-store.js';

/** Uplink freshness in process memory: the memory storage's driver, and deps built without one. */
export class MemoryUplinkCache implements UplinkCacheStore {
  readonly #records: Map<string, UplinkCacheRecord>;

  /** Forgets a deleted tenant's records; package writes do not touch them. */
  readonly writeHook: MemoryPackageWriteHook = {
    onWrite: () => undefined,
    onTenantDelete: (tenant) => {
      const prefix = `${tenant}\0`;
      for (const key of this.#records.keys()) if (key.startsWith(prefix)) this.#records.delete(key);
    },
  };

  readonly #tenantExists: (tenant: TenantId) => boolean;

  /**
   * `records` may be shared by several caches, as several processes share a database;
   * `tenantExists` tells which tenants still take records (nothing for one deleted meanwhile).
   */
  constructor(records: Map<string, UplinkCacheRecord> = new Map(), tenantExists: (tenant: TenantId) => boolean = () => true) {
    this.#records = records;
    this.#tenantExists = tenantExists;
  }

  async get(tenant: TenantId, name: string): Promise<UplinkCacheRecord | undefined> {
    const record = this.#records.get(`${tenant}\0${name}`);
    return record && { ...record };
  }

  async put(tenant: TenantId, name: string, record: UplinkCacheRecord): Promise<void> {
    if (!this.#tenantExists(tenant)) return;
    this.#records.set(`${tenant}\0${name}`, { ...record });
  }
}
