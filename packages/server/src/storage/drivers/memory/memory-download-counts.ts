import type { DownloadCountStore, DownloadIncrement, TenantId } from '../../ports.js';
import type { MemoryPackageWriteHook } from './memory-metadata-store.js';

/** Download counts in process memory, by tenant, package, day and version. */
export class MemoryDownloadCounts implements DownloadCountStore {
  readonly #counts: Map<string, DownloadIncrement>;

  /** Drops a deleted tenant's counts; package writes do not touch counts. */
  readonly writeHook: MemoryPackageWriteHook = {
    onWrite: () => undefined,
    onTenantDelete: (tenant) => {
      for (const [k, count] of this.#counts) if (count.tenant === tenant) this.#counts.delete(k);
    },
  };

  readonly #tenantExists: (tenant: TenantId) => boolean;

  /**
   * `tenantExists` tells which tenants still take counts (the memory database's, in a memory
   * storage): counts buffered for a tenant deleted meanwhile go with it.
   */
  constructor(counts: Map<string, DownloadIncrement> = new Map(), tenantExists: (tenant: TenantId) => boolean = () => true) {
    this.#counts = counts;
    this.#tenantExists = tenantExists;
  }

  async add(increments: readonly DownloadIncrement[]): Promise<void> {
    for (const i of increments) {
      if (!this.#tenantExists(i.tenant)) continue;
      const k = countKey(i);
      const count = this.#counts.get(k);
      if (count) count.count += i.count;
      else this.#counts.set(k, { ...i });
    }
  }

  async perDay(tenant: TenantId, name: string, startDay: string, endDay: string): Promise<{ day: string; downloads: number }[]> {
    const days = new Map<string, number>();
    for (const c of this.#counts.values()) {
      if (c.tenant !== tenant || c.name !== name || c.day < startDay || c.day > endDay) continue;
      days.set(c.day, (days.get(c.day) ?? 0) + c.count);
    }
    return [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, downloads]) => ({ day, downloads }));
  }

  async list(tenant: TenantId): Promise<DownloadIncrement[]> {
    return [...this.#counts.values()]
      .filter((c) => c.tenant === tenant)
      .map((c) => ({ ...c }))
      .sort((a, b) => compare(a.name, b.name) || compare(a.day, b.day) || compare(a.version, b.version));
  }

  async replace(counts: readonly DownloadIncrement[]): Promise<void> {
    for (const c of counts) this.#counts.set(countKey(c), { ...c });
  }

  /** Downloads of a package from `startDay` to `endDay` (inclusive), all versions summed. */
  sum(tenant: TenantId, name: string, startDay: string, endDay: string): number {
    let sum = 0;
    for (const c of this.#counts.values()) {
      if (c.tenant === tenant && c.name === name && c.day >= startDay && c.day <= endDay) sum += c.count;
    }
    return sum;
  }
}

function countKey(c: DownloadIncrement): string {
  return `${c.tenant}\0${c.name}\0${c.day}\0${c.version}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
