import type { CollectResult, RegistryUsage, StorageUsageStore, TenantId, VersionUsage } from '../../ports.js';
import { NO_USAGE, packageUsageWrite, quotaProblem, rowsAfter, usageAfter } from '../../storage-usage.js';
import type { MemoryPackageWriteHook } from './memory-metadata-store.js';

/** Storage usage in process memory: one row per version (null bytes: not measured), by package. */
export class MemoryStorageUsage implements StorageUsageStore {
  /** `tenant\0name` → version → its blobs (bytes null: not measured). */
  readonly #rows = new Map<string, Map<string, { bytes: number | null; files: number }>>();
  #lastCollect: CollectResult | undefined;

  /** Checked and applied before the package is written, in the same turn: a refusal writes nothing. */
  readonly writeHook: MemoryPackageWriteHook = {
    onWrite: () => undefined,
    beforeWrite: (tenant, name, pkg) => {
      const key = `${tenant}\0${name}`;
      const rows = this.#rows.get(key) ?? new Map<string, { bytes: number | null; files: number }>();
      const write = packageUsageWrite(pkg, [...rows.keys()]);
      if (write.removed.length === 0 && write.added.length === 0) return;
      if (pkg.usage?.limit) {
        const old = new Map(
          [...rows].map(([version, row]): [string, VersionUsage] => [version, { bytes: row.bytes ?? 0, files: row.files }]),
        );
        const before = this.#usage(tenant);
        const problem = quotaProblem(tenant, before, usageAfter(before, old, rowsAfter(old, write)), pkg.usage.limit);
        if (problem) throw problem;
      }
      for (const version of write.removed) rows.delete(version);
      for (const [version, usage] of write.added) rows.set(version, { ...usage });
      if (rows.size > 0) this.#rows.set(key, rows);
      else this.#rows.delete(key);
    },
    // Each write checked after the ones before it, as their updates would be; a refusal puts
    // back the rows of those already applied.
    beforeWrites: (tenant, writes) => {
      const keys = writes.map(({ name }) => `${tenant}\0${name}`);
      const saved = keys.map((key) => [key, this.#rows.get(key)] as const);
      for (const key of keys) {
        const rows = this.#rows.get(key);
        if (rows) this.#rows.set(key, new Map([...rows].map(([version, row]) => [version, { ...row }])));
      }
      try {
        for (const { name, next } of writes) this.writeHook.beforeWrite!(tenant, name, next);
      } catch (err) {
        for (const [key, rows] of saved) {
          if (rows) this.#rows.set(key, rows);
          else this.#rows.delete(key);
        }
        throw err;
      }
    },
    onTenantDelete: (tenant) => {
      for (const key of this.#rows.keys()) if (key.startsWith(`${tenant}\0`)) this.#rows.delete(key);
    },
  };

  async usage(tenant: TenantId): Promise<RegistryUsage> {
    return this.#usage(tenant);
  }

  async all(): Promise<Map<TenantId, RegistryUsage>> {
    const tenants = new Set([...this.#rows.keys()].map((key) => key.slice(0, key.indexOf('\0'))));
    return new Map([...tenants].map((tenant) => [tenant, this.#usage(tenant)]));
  }

  async unmeasured(tenant: TenantId): Promise<{ name: string; version: string }[]> {
    const found: { name: string; version: string }[] = [];
    for (const [key, rows] of this.#rows) {
      if (!key.startsWith(`${tenant}\0`)) continue;
      for (const [version, row] of rows) if (row.bytes === null) found.push({ name: key.slice(tenant.length + 1), version });
    }
    return found.sort((a, b) => (a.name === b.name ? compare(a.version, b.version) : compare(a.name, b.name)));
  }

  async recordCollect(result: CollectResult): Promise<void> {
    this.#lastCollect = { ...result };
  }

  async lastCollect(): Promise<CollectResult | undefined> {
    return this.#lastCollect && { ...this.#lastCollect };
  }

  #usage(tenant: TenantId): RegistryUsage {
    const usage = { ...NO_USAGE };
    for (const [key, rows] of this.#rows) {
      if (!key.startsWith(`${tenant}\0`)) continue;
      usage.packages++;
      for (const row of rows.values()) {
        usage.bytes += row.bytes ?? 0;
        usage.files += row.files;
      }
    }
    return usage;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
