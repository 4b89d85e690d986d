import { type SearchResponse, packageNotFound } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import { fillDays, parseDownloadPeriod } from '../search/download-periods.js';
import type { SearchRequest } from '../search/search-query.js';
import { searchResponseBody, searchResponseHead, toSearchResponse } from '../search/search-results.js';
import { BudgetLru } from '../storage/budget-lru.js';
import type { SearchPage, TenantId } from '../storage/ports.js';
import { SEARCH_RESULTS_CHANGED } from './search-changes.js';
import { singleIncarnation, type TenantScopeOf } from './tenant-scope.js';

/** Matches read per page, and at most, for a caller that may see only some packages. */
const SCOPED_SEARCH_PAGE = 250;
const SCOPED_SEARCH_LIMIT = 5000;

/**
 * Kept responses refreshed in the background at once. After an announcement of new counts every
 * response is stale together: refreshing them all at once loaded the database as much as
 * dropping them did, and every search waited behind those queries. The others are answered as
 * they are until a slot is free.
 */
const BACKGROUND_READS = 2;

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

export interface SearchServiceOptions {
  /**
   * For an index that cannot tell when its results change (PostgreSQL): responses are answered
   * as they are for this long (for as long again while one read refreshes them), and dropped
   * whenever the bus announces a package write of any node. New download counts or scores
   * (SEARCH_RESULTS_CHANGED) drop nothing: each response read before is answered once more while
   * one read refreshes it. Without it such an index gets no cache.
   */
  sharedMaxAgeMs?: number;
  /** Milliseconds on a monotonic clock (tests move it). */
  clock?: () => number;
  /** The key of a tenant's responses: its incarnation too (TenantService.scopeOf). */
  scopeOf?: TenantScopeOf;
}

interface KeptResponse {
  head: Buffer;
  /** The clock when it was read. */
  readAt: number;
}

/** What SearchService reaches of the server's deps. */
export type SearchServiceDeps = Pick<ServerDeps, 'config' | 'search' | 'downloadCounts' | 'bus' | 'now' | 'packages'>;

/**
 * Search, the `/-/all` listing and download counts: the read side of discovery. Search responses
 * are kept (all but their time, as bytes), bounded by the number of results they hold (the
 * searchCache setting): while the index reports no change (SQLite), or, for an index that cannot
 * tell (PostgreSQL), until a node announces a change on the bus (and refreshed after
 * `sharedMaxAgeMs`).
 */
export class SearchService {
  readonly #deps: SearchServiceDeps;
  readonly #responses: BudgetLru<KeptResponse> | undefined;
  readonly #maxAgeMs: number;
  readonly #clock: () => number;
  readonly #scopeOf: TenantScopeOf;
  #responsesVersion: number | undefined;
  /**
   * Reads in flight by key and version: the searches that miss at the same moment (every kept
   * response is dropped on any write, and a popular query is asked by many clients at once)
   * share one read of the index instead of each running the query.
   */
  readonly #reading = new Map<string, Promise<KeptResponse>>();
  /** Refreshes of kept responses running in the background (at most BACKGROUND_READS). */
  #backgroundReads = 0;
  /** Writes announced on the bus (and resets), for an index without resultsVersion. */
  #announced = 0;
  /**
   * When a node last announced new download counts or scores (SEARCH_RESULTS_CHANGED): a
   * response read before is answered once more while one read refreshes it. Dropping them all
   * instead made every search after each announcement wait for the database at once.
   */
  #scoresChangedAt = -Infinity;

  constructor(deps: SearchServiceDeps, options: SearchServiceOptions = {}) {
    this.#deps = deps;
    const tells = deps.search.resultsVersion !== undefined;
    this.#maxAgeMs = tells ? Infinity : (options.sharedMaxAgeMs ?? 0);
    this.#clock = options.clock ?? (() => performance.now());
    this.#scopeOf = options.scopeOf ?? singleIncarnation;
    const budget = deps.config.searchCache;
    this.#responses = budget > 0 && this.#maxAgeMs > 0 ? new BudgetLru<KeptResponse>(budget) : undefined;
    if (this.#responses && !tells) {
      deps.bus.subscribe((_tenant, name) => {
        if (name === SEARCH_RESULTS_CHANGED) this.#scoresChangedAt = this.#clock();
        else this.#announced++;
      });
      deps.bus.subscribeReset(() => this.#announced++);
    }
  }

  /** The response of `/-/v1/search` as bytes, assembled without parsing a result (the route's form). */
  async searchBody(tenant: TenantId, request: SearchRequest): Promise<Buffer> {
    return searchResponseBody(await this.#head(tenant, request), this.#deps.now());
  }

  /**
   * The response for a caller that may see only some packages (a token limited to packages):
   * the query's matches are read from the start, those it may not see dropped, and the page cut
   * from the rest, so `total` and paging count only what it may see. Read past the cache (such
   * tokens are few) and bounded to the first SCOPED_SEARCH_LIMIT matches.
   */
  async searchBodyWithin(tenant: TenantId, request: SearchRequest, visible: (name: string) => boolean): Promise<Buffer> {
    const { query, size, from } = request;
    const hits = [];
    for (let offset = 0; offset < SCOPED_SEARCH_LIMIT; offset += SCOPED_SEARCH_PAGE) {
      const page = await this.#deps.search.search(tenant, query, { size: SCOPED_SEARCH_PAGE, from: offset });
      hits.push(...page.hits.filter((hit) => visible(hit.name)));
      if (page.hits.length < SCOPED_SEARCH_PAGE || offset + page.hits.length >= page.total) break;
    }
    const head = searchResponseHead({ hits: hits.slice(from, from + size), total: hits.length });
    return searchResponseBody(head, this.#deps.now());
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
    const read = () => this.#deps.search.search(tenant, query, { size, from });
    const responses = this.#responses;
    if (responses === undefined) return searchResponseHead(await read());
    const version = this.#version();
    if (version === undefined) {
      // Whatever was kept may have missed a write by now, whether or not the bus says so later.
      responses.clear();
      return searchResponseHead(await read());
    }
    if (version !== this.#responsesVersion) {
      responses.clear();
      this.#responsesVersion = version;
    }
    const key = `${this.#scopeOf(tenant)}\0${size}\0${from}\0${JSON.stringify(query)}`;
    const now = this.#clock();
    const kept = responses.get(key);
    if (kept !== undefined) {
      const age = now - kept.readAt;
      if (age <= this.#maxAgeMs && kept.readAt >= this.#scoresChangedAt) return kept.head;
      // Past its age by less than the age again: answered as it is while one read refreshes it.
      // Responses read together expire together, and waiting for all of them at once stalled
      // every search for the time the database took to run them all.
      if (age <= 2 * this.#maxAgeMs) {
        this.#refreshInBackground(key, version, now, read);
        return kept.head;
      }
    }
    return (await this.#readOnce(key, version, now, read)).head;
  }

  /** Starts a read of a kept response unless one runs for it, or BACKGROUND_READS others run. */
  #refreshInBackground(key: string, version: number, now: number, read: () => Promise<SearchPage>): void {
    if (this.#reading.has(`${version}\0${key}`) || this.#backgroundReads >= BACKGROUND_READS) return;
    this.#backgroundReads++;
    this.#readOnce(key, version, now, read)
      .catch(() => undefined)
      .finally(() => this.#backgroundReads--);
  }

  /** One read of the index for `key` at `version`, shared by every search that asks meanwhile. */
  #readOnce(key: string, version: number, now: number, read: () => Promise<SearchPage>): Promise<KeptResponse> {
    const flight = `${version}\0${key}`;
    let reading = this.#reading.get(flight);
    if (reading === undefined) {
      reading = read().then((page) => {
        const head = searchResponseHead(page);
        const response = { head, readAt: now };
        // A page read before a change that landed while it was read is not kept.
        if (this.#version() === version) this.#responses?.set(key, response, Math.max(1, page.hits.length));
        return response;
      });
      this.#reading.set(flight, reading);
      const done = () => this.#reading.delete(flight);
      reading.then(done, done);
    }
    return reading;
  }

  /** What must stay the same for kept responses to hold; undefined: keep nothing now. */
  #version(): number | undefined {
    const index = this.#deps.search;
    if (index.resultsVersion) return index.resultsVersion();
    // Deaf to other nodes' writes: anything kept may be stale.
    return this.#deps.bus.connected ? this.#announced : undefined;
  }

  /**
   * `/-/all` as JSON text in slices: `{"_updated": <ms>, "<name>": <summary>, ...}`, names
   * sorted. Each slice is one indexed range read, so memory stays flat however many packages.
   */
  async *allPackages(tenant: TenantId, visible: (name: string) => boolean = () => true): AsyncGenerator<string> {
    yield `{"_updated":${this.#deps.now().getTime()}`;
    let after: string | null = null;
    for (;;) {
      const slice = await this.#deps.search.listSummaries(tenant, after, ALL_SLICE);
      if (slice.length === 0) break;
      yield slice
        .filter((entry) => visible(entry.name))
        .map((entry) => `,${JSON.stringify(entry.name)}:${entry.summaryJson}`)
        .join('');
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
    const stored = await this.#deps.packages.package(tenant, name).read();
    if (!stored || stored.unpublished) throw packageNotFound(name);
    const counts = await this.#deps.downloadCounts.perDay(tenant, name, range.start, range.end);
    return { range, counts };
  }
}
