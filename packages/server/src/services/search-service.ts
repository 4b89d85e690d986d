import { ProtocolError, type SearchResponse } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import { fillDays, parseDownloadPeriod } from '../search/download-periods.js';
import type { SearchRequest } from '../search/search-query.js';
import { searchResponseBody, searchResponseHead, toSearchResponse } from '../search/search-results.js';
import { BudgetLru } from '../storage/budget-lru.js';
import type { TenantId } from '../storage/ports.js';

/** `/-/all` is written in slices of this many packages, so a large registry streams. */
const ALL_SLICE = 1000;

export interface DownloadPoint {
  downloads: number;
  start: string;
  end: string;
  package: string;
}

export interface DownloadRange {
  downloads: { day: string; downloads: number }[];
  start: string;
  end: string;
  package: string;
}

/**
 * Search, the `/-/all` listing and download counts: the read side of discovery. Search responses
 * are kept (all but their time, as bytes) while the index reports no change, bounded by the
 * number of results they hold (the searchCache setting).
 */
export class SearchService {
  readonly #deps: ServerDeps;
  readonly #responses: BudgetLru<Buffer> | undefined;
  #responsesVersion: number | undefined;

  constructor(deps: ServerDeps) {
    this.#deps = deps;
    const budget = deps.config.searchCache;
    this.#responses = budget > 0 && deps.search.resultsVersion ? new BudgetLru<Buffer>(budget) : undefined;
  }

  /** The response of `/-/v1/search` as bytes, assembled without parsing a result (the route's form). */
  async searchBody(tenant: TenantId, request: SearchRequest): Promise<Buffer> {
    return searchResponseBody(await this.#head(tenant, request), this.#deps.now());
  }

  async search(tenant: TenantId, request: SearchRequest): Promise<SearchResponse> {
    return toSearchResponse(await this.searchBody(tenant, request));
  }

  /** Every package in one order, without a query: the web interface's lists and its browsing. */
  async ranked(tenant: TenantId, order: 'updated' | 'downloads', page: { size: number; from: number }): Promise<SearchResponse> {
    const head = searchResponseHead(await this.#deps.search.ranked(tenant, order, page));
    return toSearchResponse(searchResponseBody(head, this.#deps.now()));
  }

  async #head(tenant: TenantId, request: SearchRequest): Promise<Buffer> {
    const { query, size, from } = request;
    const responses = this.#responses;
    if (responses === undefined) return searchResponseHead(await this.#deps.search.search(tenant, query, { size, from }));
    const version = this.#deps.search.resultsVersion!();
    if (version !== this.#responsesVersion) {
      responses.clear();
      this.#responsesVersion = version;
    }
    const key = `${tenant}\0${size}\0${from}\0${JSON.stringify(query)}`;
    const cached = responses.get(key);
    if (cached !== undefined) return cached;
    const page = await this.#deps.search.search(tenant, query, { size, from });
    const head = searchResponseHead(page);
    // A page read before a change that landed while it was read is not kept.
    if (this.#deps.search.resultsVersion!() === version) responses.set(key, head, Math.max(1, page.hits.length));
    return head;
  }

  /**
   * `/-/all` as JSON text in slices: `{"_updated": <ms>, "<name>": <summary>, ...}`, names
   * sorted. Each slice is one indexed range read, so memory stays flat however many packages.
   */
  async *allPackages(tenant: TenantId): AsyncGenerator<string> {
    yield `{"_updated":${this.#deps.now().getTime()}`;
    let after: string | null = null;
    for (;;) {
      const slice = await this.#deps.search.listSummaries(tenant, after, ALL_SLICE);
      if (slice.length === 0) break;
      yield slice.map((entry) => `,${JSON.stringify(entry.name)}:${entry.summaryJson}`).join('');
      after = slice[slice.length - 1]!.name;
      if (slice.length < ALL_SLICE) break;
    }
    yield '}';
  }

  async downloadPoint(tenant: TenantId, name: string, period: string): Promise<DownloadPoint> {
    const { range, counts } = await this.#countsOf(tenant, name, period);
    return { downloads: counts.reduce((sum, c) => sum + c.downloads, 0), start: range.start, end: range.end, package: name };
  }

  async downloadRange(tenant: TenantId, name: string, period: string): Promise<DownloadRange> {
    const { range, counts } = await this.#countsOf(tenant, name, period);
    return { downloads: fillDays(range, counts), start: range.start, end: range.end, package: name };
  }

  async #countsOf(tenant: TenantId, name: string, period: string) {
    const range = parseDownloadPeriod(period, this.#deps.now());
    const stored = await this.#deps.metadata.getPackage(tenant, name);
    if (!stored || stored.unpublished) throw new ProtocolError('NOT_FOUND', `Package '${name}' not found`);
    const counts = await this.#deps.downloadCounts.perDay(tenant, name, range.start, range.end);
    return { range, counts };
  }
}
