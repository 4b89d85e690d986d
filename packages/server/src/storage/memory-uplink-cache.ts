import type { TenantId, UplinkCacheRecord, UplinkCacheStore } from './ports.js';

/** Uplink freshness in this process only: for deps built without a database driver (unit tests). */
export class MemoryUplinkCache implements UplinkCacheStore {
  readonly #records = new Map<string, UplinkCacheRecord>();

  async get(tenant: TenantId, name: string): Promise<UplinkCacheRecord | undefined> {
    const record = this.#records.get(`${tenant}\0${name}`);
    return record && { ...record };
  }

  async put(tenant: TenantId, name: string, record: UplinkCacheRecord): Promise<void> {
    this.#records.set(`${tenant}\0${name}`, { ...record });
  }
}
