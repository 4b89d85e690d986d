import type { ServerDeps } from '../deps.js';
import type { TenantId } from '../storage/ports.js';

/** What DependentsService reaches of the server's deps. */
export type DependentsServiceDeps = Pick<ServerDeps, 'packages'>;

export interface Dependents {
  /** Names of the packages whose latest version depends on the package, sorted. */
  names: string[];
  /** False when the registry is larger than the scan reads: `names` is then empty and unknown. */
  counted: boolean;
}

export interface DependentsOptions {
  /** How long one scan of a registry is reused (a publish shows up at most this late). */
  maxAgeMs?: number;
  /** Registries with more packages than this are not scanned. */
  maxPackages?: number;
  clock?: () => number;
}

interface Scan {
  at: number;
  /** dependency → its dependents; undefined when the registry was too large to scan. */
  byDependency: Map<string, string[]> | undefined;
}

/** Registries whose scans are kept at once (each holds one entry per dependency edge). */
const MAX_KEPT = 16;

/**
 * Which packages of a registry depend on a package ("dependents", as npm's pages show them):
 * the stores keep no reverse index, so a registry's latest versions are read once and the
 * answer kept for a few minutes. Only the package pages ask, never the API.
 */
export class DependentsService {
  readonly #deps: DependentsServiceDeps;
  readonly #maxAgeMs: number;
  readonly #maxPackages: number;
  readonly #clock: () => number;
  readonly #scans = new Map<TenantId, Scan>();
  readonly #pending = new Map<TenantId, Promise<Scan>>();

  constructor(deps: DependentsServiceDeps, options: DependentsOptions = {}) {
    this.#deps = deps;
    this.#maxAgeMs = options.maxAgeMs ?? 5 * 60_000;
    this.#maxPackages = options.maxPackages ?? 10_000;
    this.#clock = options.clock ?? (() => performance.now());
  }

  async of(tenant: TenantId, name: string): Promise<Dependents> {
    const scan = await this.#scan(tenant);
    if (!scan.byDependency) return { names: [], counted: false };
    return { names: scan.byDependency.get(name) ?? [], counted: true };
  }

  async #scan(tenant: TenantId): Promise<Scan> {
    const kept = this.#scans.get(tenant);
    if (kept && this.#clock() - kept.at < this.#maxAgeMs) return kept;
    let pending = this.#pending.get(tenant);
    if (!pending) {
      // Concurrent page views of one registry share one scan.
      pending = this.#read(tenant).finally(() => this.#pending.delete(tenant));
      this.#pending.set(tenant, pending);
    }
    const scan = await pending;
    if (this.#scans.size >= MAX_KEPT && !this.#scans.has(tenant)) this.#scans.delete(this.#scans.keys().next().value!);
    this.#scans.set(tenant, scan);
    return scan;
  }

  async #read(tenant: TenantId): Promise<Scan> {
    const at = this.#clock();
    const names = await this.#deps.packages.listPackageNames(tenant);
    if (names.length > this.#maxPackages) return { at, byDependency: undefined };
    const byDependency = new Map<string, string[]>();
    for (const name of names) {
      const stored = await this.#deps.packages.package(tenant, name).read();
      if (!stored || stored.unpublished) continue;
      const doc = stored.document;
      const latest = doc['dist-tags']?.latest;
      const record = latest ? doc.versions?.[latest] : undefined;
      for (const dependency of Object.keys(record?.dependencies ?? {})) {
        const list = byDependency.get(dependency);
        if (list) list.push(name);
        else byDependency.set(dependency, [name]);
      }
    }
    for (const list of byDependency.values()) list.sort();
    return { at, byDependency };
  }
}
