import type { AdvisoryRecord, AdvisoryStore, TenantId } from '../../ports.js';
import type { MemoryPackageWriteHook } from './memory-metadata-store.js';
import { byName, sorted } from '../../advisory-order.js';

/** Advisories in process memory: the memory storage's driver. */
export class MemoryAdvisories implements AdvisoryStore {
  readonly #records = new Map<string, AdvisoryRecord>();
  readonly #tenantExists: (tenant: TenantId) => boolean;

  readonly writeHook: MemoryPackageWriteHook = {
    onWrite: () => undefined,
    onTenantDelete: (tenant) => {
      for (const key of this.#records.keys()) if (key.startsWith(`${tenant}\0`)) this.#records.delete(key);
    },
  };

  constructor(tenantExists: (tenant: TenantId) => boolean = () => true) {
    this.#tenantExists = tenantExists;
  }

  async list(tenant: TenantId, name: string): Promise<AdvisoryRecord[]> {
    return sorted([...this.#of(tenant)].filter((r) => r.name === name));
  }

  async inForce(tenant: TenantId, names: readonly string[]): Promise<Map<string, AdvisoryRecord[]>> {
    const wanted = new Set(names);
    return byName([...this.#of(tenant)].filter((r) => wanted.has(r.name) && r.withdrawnAt === null));
  }

  async listAll(tenant: TenantId): Promise<AdvisoryRecord[]> {
    return sorted([...this.#of(tenant)]);
  }

  async put(tenant: TenantId, advisory: AdvisoryRecord): Promise<void> {
    if (!this.#tenantExists(tenant)) return;
    this.#records.set(`${tenant}\0${advisory.name}\0${advisory.id}`, structuredClone(advisory));
  }

  *#of(tenant: TenantId): Iterable<AdvisoryRecord> {
    for (const [key, record] of this.#records) if (key.startsWith(`${tenant}\0`)) yield structuredClone(record);
  }
}
