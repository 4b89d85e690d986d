import type { CollectResult, RegistryUsage, StorageUsageStore, TenantId } from '../storage/ports.js';

/** The label of the registries beyond the largest ones, summed (not a DNS label: no tenant has it). */
export const OTHER_TENANTS = '(other)';

export interface StorageFigures {
  /** The largest registries by bytes, each alone, then the rest summed under OTHER_TENANTS. */
  registries: { tenant: TenantId; usage: RegistryUsage }[];
  /** Every registry summed. */
  total: RegistryUsage;
  /** How many registries hold anything. */
  registryCount: number;
  lastCollect: CollectResult | undefined;
}

export interface StorageFiguresOptions {
  /** Registries given their own series; the rest share one (bounded cardinality). */
  maxTenants?: number;
  /** How long figures are reused: a scrape every few seconds sums the usage table at most this often. */
  cacheMs?: number;
}

/**
 * The storage figures `/-/metrics` shows, read from the usage table the metadata database keeps
 * (the same on every node sharing it), at most once per `cacheMs`. With thousands of tenants
 * only the `maxTenants` largest get their own series.
 */
export class StorageFigureSource {
  readonly #usage: StorageUsageStore;
  readonly #maxTenants: number;
  readonly #cacheMs: number;
  #cached: { at: number; figures: Promise<StorageFigures> } | undefined;

  constructor(usage: StorageUsageStore, options: StorageFiguresOptions = {}) {
    this.#usage = usage;
    this.#maxTenants = options.maxTenants ?? 100;
    this.#cacheMs = options.cacheMs ?? 15_000;
  }

  read(): Promise<StorageFigures> {
    const now = performance.now();
    if (this.#cached && now - this.#cached.at < this.#cacheMs) return this.#cached.figures;
    const figures = this.#compute();
    this.#cached = { at: now, figures };
    // A failed read is not kept: the next scrape asks again.
    figures.catch(() => {
      if (this.#cached?.figures === figures) this.#cached = undefined;
    });
    return figures;
  }

  async #compute(): Promise<StorageFigures> {
    const all = [...(await this.#usage.all())].sort((a, b) => b[1].bytes - a[1].bytes || compare(a[0], b[0]));
    const total = { bytes: 0, files: 0, packages: 0 };
    for (const [, usage] of all) add(total, usage);
    const registries = all.slice(0, this.#maxTenants).map(([tenant, usage]) => ({ tenant, usage }));
    if (all.length > this.#maxTenants) {
      const other = { bytes: 0, files: 0, packages: 0 };
      for (const [, usage] of all.slice(this.#maxTenants)) add(other, usage);
      registries.push({ tenant: OTHER_TENANTS, usage: other });
    }
    return { registries, total, registryCount: all.length, lastCollect: await this.#usage.lastCollect() };
  }
}

function add(sum: RegistryUsage, usage: RegistryUsage): void {
  sum.bytes += usage.bytes;
  sum.files += usage.files;
  sum.packages += usage.packages;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
