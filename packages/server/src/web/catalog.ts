import type { SearchObject, SupportedEngine } from '@pkg/protocol';
import { parseSearchText } from '../search/search-query.js';
import { addDays, utcDay } from '../search/utc-days.js';
import type { SearchService } from '../services/search-service.js';
import type { TenantId } from '../storage/ports.js';
import { personName } from './package-facts.js';

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
  /** Downloads over the last 7 days. */
  weeklyDownloads: number;
  /** Downloads over the last 30 days. */
  monthlyDownloads: number;
  /** The deprecation message of the shown version, when it is deprecated. */
  deprecated: string | undefined;
  /** The engines the shown version supports (search objects carry them: search-documents.ts). */
  engines: SupportedEngine[];
}

export interface WeekCount {
  /** ISO date of the week's first day. */
  week: string;
  downloads: number;
}

/** What the web pages read about many packages at once. */
export interface WebCatalog {
  /** The API's search; an empty text lists every package, newest publish first. */
  search(tenant: TenantId, text: string, from: number, size: number): Promise<{ total: number; packages: PackageSummary[] }>;
  recentlyUpdated(tenant: TenantId, limit: number): Promise<PackageSummary[]>;
  /** By downloads in the last 30 days; packages without any are left out. */
  mostDownloaded(tenant: TenantId, limit: number): Promise<PackageSummary[]>;
  /** Downloads per 7-day week, oldest first, the last week ending today (UTC). */
  weeklyDownloads(tenant: TenantId, name: string, weeks: number): Promise<WeekCount[]>;
}

/** The catalogue over the search service: the same index, matching and order as `/-/v1/search`. */
export class SearchCatalog implements WebCatalog {
  readonly #search: SearchService;
  readonly #now: () => Date;

  constructor(search: SearchService, now: () => Date) {
    this.#search = search;
    this.#now = now;
  }

  async search(tenant: TenantId, text: string, from: number, size: number) {
    const response =
      text.trim() === ''
        ? await this.#search.ranked(tenant, 'updated', { size, from })
        : await this.#search.search(tenant, { query: parseSearchText(text), size, from });
    return { total: response.total, packages: response.objects.map(toSummary) };
  }

  async recentlyUpdated(tenant: TenantId, limit: number) {
    return (await this.#search.ranked(tenant, 'updated', { size: limit, from: 0 })).objects.map(toSummary);
  }

  async mostDownloaded(tenant: TenantId, limit: number) {
    return (await this.#search.ranked(tenant, 'downloads', { size: limit, from: 0 })).objects.map(toSummary);
  }

  async weeklyDownloads(tenant: TenantId, name: string, weeks: number): Promise<WeekCount[]> {
    const today = utcDay(this.#now());
    const start = addDays(today, -(weeks * 7 - 1));
    const range = await this.#search.downloadRange(tenant, name, `${start}:${today}`);
    const result: WeekCount[] = [];
    for (let i = 0; i < weeks; i++) {
      const days = range.downloads.slice(i * 7, i * 7 + 7);
      result.push({ week: days[0]?.day ?? addDays(start, i * 7), downloads: days.reduce((sum, d) => sum + d.downloads, 0) });
    }
    return result;
  }
}

function toSummary(object: SearchObject): PackageSummary {
  const pkg = object.package;
  return {
    name: pkg.name,
    displayName: pkg.displayName,
    version: pkg.version,
    description: pkg.description ?? '',
    keywords: Array.isArray(pkg.keywords) ? pkg.keywords : [],
    author: personName(pkg.author),
    updated: object.updated,
    weeklyDownloads: object.downloads.weekly,
    monthlyDownloads: object.downloads.monthly,
    deprecated: typeof object.flags?.deprecated === 'string' ? object.flags.deprecated : undefined,
    engines: Array.isArray(pkg.engines) ? pkg.engines : [],
  };
}
