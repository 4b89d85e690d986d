import type { MetadataStore, StoredPackage, TenantId } from '../storage/ports.js';
import { keywordsOf, latestVersionOf, personName } from './package-facts.js';

/** One package as lists show it (home, search results). */
export interface PackageSummary {
  name: string;
  displayName: string | undefined;
  version: string;
  description: string;
  keywords: string[];
  author: string;
  /** ISO time of the last publish. */
  updated: string;
  /** Downloads over the last 7 days, when counted. */
  weeklyDownloads: number | undefined;
}

export interface WeekCount {
  /** ISO date of the week's first day. */
  week: string;
  downloads: number;
}

/**
 * What the web pages read about many packages at once. The storage-backed implementation below
 * serves until the search service is wired in; the pages do not change when it is.
 */
export interface WebCatalog {
  search(tenant: TenantId, text: string, from: number, size: number): Promise<{ total: number; packages: PackageSummary[] }>;
  recentlyUpdated(tenant: TenantId, limit: number): Promise<PackageSummary[]>;
  mostDownloaded(tenant: TenantId, limit: number): Promise<PackageSummary[]>;
  /** Downloads per week, oldest first, ending with the current week; empty when nothing is counted. */
  weeklyDownloads(tenant: TenantId, name: string, weeks: number): Promise<WeekCount[]>;
}

export function summarize(stored: StoredPackage): PackageSummary | undefined {
  const doc = stored.document;
  const version = latestVersionOf(doc);
  if (stored.unpublished || version === undefined) return undefined;
  const record = doc.versions[version];
  return {
    name: doc.name,
    displayName: typeof record?.displayName === 'string' ? record.displayName : undefined,
    version,
    description: String(record?.description ?? doc.description ?? ''),
    keywords: keywordsOf(record, doc),
    author: personName(record?.author ?? doc.author),
    updated: doc.time?.modified ?? doc.time?.[version] ?? '',
    weeklyDownloads: undefined,
  };
}

/**
 * Reads every package of the tenant and filters in memory: right for the few hundred packages of
 * a team registry, and the fallback while no search index is wired in. Matching follows the
 * search API's rules: case-insensitive substrings of name, display name, description, keywords, author.
 */
export class StorageCatalog implements WebCatalog {
  readonly #metadata: MetadataStore;

  constructor(metadata: MetadataStore) {
    this.#metadata = metadata;
  }

  async search(tenant: TenantId, text: string, from: number, size: number) {
    const terms = text.toLowerCase().split(/\s+/).filter(Boolean);
    const all = await this.#all(tenant);
    const matches = all
      .map((pkg) => ({ pkg, rank: rank(pkg, terms) }))
      .filter((m) => m.rank > 0)
      .sort((a, b) => b.rank - a.rank || b.pkg.updated.localeCompare(a.pkg.updated) || a.pkg.name.localeCompare(b.pkg.name));
    return { total: matches.length, packages: matches.slice(from, from + size).map((m) => m.pkg) };
  }

  async recentlyUpdated(tenant: TenantId, limit: number) {
    const all = await this.#all(tenant);
    return all.sort((a, b) => b.updated.localeCompare(a.updated) || a.name.localeCompare(b.name)).slice(0, limit);
  }

  async mostDownloaded(_tenant: TenantId, _limit: number): Promise<PackageSummary[]> {
    return [];
  }

  async weeklyDownloads(_tenant: TenantId, _name: string, _weeks: number): Promise<WeekCount[]> {
    return [];
  }

  async #all(tenant: TenantId): Promise<PackageSummary[]> {
    const names = await this.#metadata.listPackageNames(tenant);
    const summaries: PackageSummary[] = [];
    for (const name of names) {
      const stored = await this.#metadata.getPackage(tenant, name);
      const summary = stored && summarize(stored);
      if (summary) summaries.push(summary);
    }
    return summaries;
  }
}

/** 0: no match. Every term must match somewhere; a name match weighs most. */
function rank(pkg: PackageSummary, terms: string[]): number {
  if (terms.length === 0) return 1;
  let score = 0;
  for (const term of terms) {
    if (pkg.name.includes(term)) score += pkg.name === term ? 8 : 4;
    else if ((pkg.displayName ?? '').toLowerCase().includes(term)) score += 3;
    else if (pkg.keywords.some((k) => k.toLowerCase().includes(term))) score += 2;
    else if (pkg.description.toLowerCase().includes(term) || pkg.author.toLowerCase().includes(term)) score += 1;
    else return 0;
  }
  return score;
}
