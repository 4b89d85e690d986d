import { rankPackages, relevanceTier, type RankedPackage } from '../../../search/relevance.js';
import { allPackagesSummary, searchPackageObject } from '../../../search/search-documents.js';
import { deriveSearchFields, maintainerKeys } from '../../../search/search-fields.js';
import { scorePackage, scoreWrittenPackage } from '../../../search/scoring.js';
import type { SearchQuery, Scores } from '../../../search/search-types.js';
import { addDays, utcDay } from '../../../search/utc-days.js';
import type { PackageSummary, SearchHit, SearchIndex, SearchPage, StoredPackage, TenantId } from '../../ports.js';
import type { MemoryDownloadCounts } from './memory-download-counts.js';
import type { MemoryPackageWriteHook } from './memory-metadata-store.js';

/** One indexed package: what the reference rules rank, and what results show of it. */
interface Entry {
  ranked: RankedPackage;
  quality: number;
  releaseTimes: number[];
  deprecated: string | undefined;
  scores: Scores;
  downloads: { weekly: number; monthly: number };
  updated: string;
  modified: string;
  packageJson: string;
  summaryJson: string;
}

/**
 * The search index in process memory: the reference rules of search/relevance.ts run over every
 * package of the tenant (fine for tests and small registries; the database drivers index).
 * Written by the memory metadata store's hook, in the same turn as the package.
 */
export class MemorySearchIndex implements SearchIndex {
  readonly #tenants = new Map<TenantId, Map<string, Entry>>();
  readonly #refreshed = new Map<TenantId, string>();
  readonly #counts: MemoryDownloadCounts;
  readonly #now: () => Date;
  #version = 0;

  readonly writeHook: MemoryPackageWriteHook = {
    onWrite: (tenant, name, pkg) => this.#index(tenant, name, pkg),
    onTenantDelete: (tenant) => {
      this.#version++;
      this.#tenants.delete(tenant);
      this.#refreshed.delete(tenant);
    },
  };

  constructor(counts: MemoryDownloadCounts, options: { now?: () => Date } = {}) {
    this.#counts = counts;
    this.#now = options.now ?? (() => new Date());
  }

  async search(tenant: TenantId, query: SearchQuery, page: { size: number; from: number }): Promise<SearchPage> {
    if (query.insecure) return { total: 0, hits: [] };
    const entries = this.#tenants.get(tenant) ?? new Map<string, Entry>();
    const ranked = rankPackages(
      [...entries.values()].map((entry) => entry.ranked),
      query,
    );
    const hits = ranked
      .slice(page.from, page.from + page.size)
      .map((pkg) => hitOf(entries.get(pkg.name)!, relevanceTier(pkg, query.terms)));
    return { total: ranked.length, hits };
  }

  async listSummaries(tenant: TenantId, after: string | null, limit: number): Promise<PackageSummary[]> {
    return this.#sorted(tenant)
      .filter(([name]) => name > (after ?? ''))
      .slice(0, limit)
      .map(([name, entry]) => ({ name, summaryJson: entry.summaryJson }));
  }

  async ranked(tenant: TenantId, order: 'updated' | 'downloads', page: { size: number; from: number }): Promise<SearchPage> {
    const entries = this.#sorted(tenant).filter(([, entry]) => order === 'updated' || entry.downloads.monthly > 0);
    if (order === 'updated') entries.sort(([a, x], [b, y]) => compare(y.updated, x.updated) || compare(a, b));
    else entries.sort(([a, x], [b, y]) => y.downloads.monthly - x.downloads.monthly || compare(a, b));
    return { total: entries.length, hits: entries.slice(page.from, page.from + page.size).map(([, entry]) => hitOf(entry, 0)) };
  }

  async refreshScores(tenant: TenantId, names: readonly string[] | null, now: Date): Promise<boolean> {
    const entries = this.#tenants.get(tenant) ?? new Map<string, Entry>();
    const today = utcDay(now);
    let changed = false;
    for (const name of names ?? [...entries.keys()]) {
      const entry = entries.get(name);
      if (!entry) continue;
      const weekly = this.#counts.sum(tenant, name, addDays(today, -6), today);
      const monthly = this.#counts.sum(tenant, name, addDays(today, -29), today);
      if (weekly === entry.downloads.weekly && monthly === entry.downloads.monthly) continue;
      entry.downloads = { weekly, monthly };
      changed = true;
    }
    const max = maxMonthly(entries);
    for (const name of names ?? [...entries.keys()]) {
      const entry = entries.get(name);
      if (!entry) continue;
      const scores = scorePackage(
        {
          quality: entry.quality,
          releaseTimes: entry.releaseTimes,
          deprecated: entry.deprecated !== undefined,
          monthlyDownloads: entry.downloads.monthly,
          maxMonthlyDownloads: max,
        },
        now,
      );
      const before = entry.scores;
      if (
        scores.final === before.final &&
        scores.detail.popularity === before.detail.popularity &&
        scores.detail.maintenance === before.detail.maintenance
      )
        continue;
      entry.scores = scores;
      entry.ranked = { ...entry.ranked, final: scores.final };
      changed = true;
    }
    if (names === null) this.#refreshed.set(tenant, today);
    if (changed) this.#version++;
    return changed;
  }

  async scoresRefreshedOn(tenant: TenantId): Promise<string | null> {
    return this.#refreshed.get(tenant) ?? null;
  }

  resultsVersion(): number {
    return this.#version;
  }

  #index(tenant: TenantId, name: string, pkg: StoredPackage): void {
    this.#version++;
    let entries = this.#tenants.get(tenant);
    if (!entries) this.#tenants.set(tenant, (entries = new Map<string, Entry>()));
    const fields = deriveSearchFields(pkg);
    const existing = entries.get(name);
    if (fields === null) {
      entries.delete(name);
      return;
    }
    const downloads = existing?.downloads ?? { weekly: 0, monthly: 0 };
    const scores = scoreWrittenPackage(fields, downloads.monthly, maxMonthly(entries), this.#now());
    entries.set(name, {
      ranked: {
        name,
        texts: fields.texts,
        keywords: fields.keywords.map((k) => k.toLowerCase()),
        maintainers: maintainerKeys(fields),
        deprecated: fields.deprecated !== undefined,
        unstable: fields.unstable,
        final: scores.final,
        engines: fields.engines.map((e) => e.engine),
      },
      quality: fields.quality,
      releaseTimes: fields.releaseTimes,
      deprecated: fields.deprecated,
      scores,
      downloads,
      updated: fields.updated,
      modified: fields.modified,
      packageJson: JSON.stringify(searchPackageObject(fields)),
      summaryJson: JSON.stringify(allPackagesSummary(fields)),
    });
  }

  #sorted(tenant: TenantId): [string, Entry][] {
    return [...(this.#tenants.get(tenant) ?? new Map<string, Entry>())].sort(([a], [b]) => compare(a, b));
  }
}

function hitOf(entry: Entry, tier: number): SearchHit {
  return {
    name: entry.ranked.name,
    tier,
    ...(entry.deprecated !== undefined ? { deprecated: entry.deprecated } : {}),
    unstable: entry.ranked.unstable,
    scores: entry.scores,
    downloads: { ...entry.downloads },
    updated: entry.updated,
    modified: entry.modified,
    packageJson: entry.packageJson,
  };
}

function maxMonthly(entries: Map<string, Entry>): number {
  let max = 0;
  for (const entry of entries.values()) max = Math.max(max, entry.downloads.monthly);
  return max;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
