import { utcDay } from '../search/utc-days.js';
import type { DownloadCountStore, DownloadIncrement, InvalidationBus, SearchIndex, TenantId } from '../storage/ports.js';
import { SEARCH_RESULTS_CHANGED } from './search-changes.js';
import { singleIncarnation, type TenantScopeOf } from './tenant-scope.js';

/**
 * Counts tarball downloads. The tarball route calls `record` for every successful GET; an
 * implementation must not slow the download path (batch its writes).
 */
export interface DownloadRecorder {
  record(tenant: TenantId, name: string, version: string): void;
  /** Writes what is buffered (called on shutdown). */
  flush(): Promise<void>;
}

/** Counts nothing: for tools that build an app without counting. */
export class NoDownloadRecorder implements DownloadRecorder {
  record(): void {}
  async flush(): Promise<void> {}
}

export interface BatchingDownloadRecorderOptions {
  /** How often buffered counts are written. */
  flushIntervalMs?: number;
  /** Buffered (package, version, day) entries that trigger a write before the interval ends. */
  maxPending?: number;
  onError?: (err: unknown) => void;
}

const DAY_MS = 86_400_000;

/**
 * Buffers counts in memory (`record` is a map increment, no IO) and writes them in one
 * transaction per interval, then refreshes the download windows and scores of the packages
 * that were downloaded, and announces that on the bus. A failed write keeps the counts for the
 * next attempt.
 */
export class BatchingDownloadRecorder implements DownloadRecorder {
  readonly #counts: DownloadCountStore;
  readonly #search: SearchIndex;
  readonly #bus: InvalidationBus | undefined;
  readonly #now: () => Date;
  readonly #maxPending: number;
  readonly #onError: (err: unknown) => void;
  /** By tenant scope, package, version and day: counts of a tenant deleted meanwhile are not written. */
  #pending = new Map<string, DownloadIncrement>();
  readonly #scopeOf: TenantScopeOf;
  #flushing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #soon = false;
  /** The current day's name and when it ends: formatted once a day, not per download. */
  #day = { name: '', endsAt: -Infinity };

  constructor(
    deps: { counts: DownloadCountStore; search: SearchIndex; now: () => Date; scopeOf?: TenantScopeOf; bus?: InvalidationBus },
    options: BatchingDownloadRecorderOptions = {},
  ) {
    this.#counts = deps.counts;
    this.#scopeOf = deps.scopeOf ?? singleIncarnation;
    this.#search = deps.search;
    this.#bus = deps.bus;
    this.#now = deps.now;
    this.#maxPending = options.maxPending ?? 10_000;
    this.#onError = options.onError ?? (() => undefined);
    this.#timer = setInterval(() => void this.flush(), options.flushIntervalMs ?? 1000);
    this.#timer.unref();
  }

  record(tenant: TenantId, name: string, version: string): void {
    const day = this.#today();
    const key = `${this.#scopeOf(tenant)}\0${name}\0${version}\0${day}`;
    const entry = this.#pending.get(key);
    if (entry) entry.count++;
    else this.#pending.set(key, { tenant, name, version, day, count: 1 });
    if (this.#pending.size >= this.#maxPending && !this.#soon) {
      this.#soon = true;
      setImmediate(() => void this.flush());
    }
  }
  #today(): string {
    const now = this.#now().getTime();
    if (now >= this.#day.endsAt || now < this.#day.endsAt - DAY_MS) {
      this.#day = { name: utcDay(new Date(now)), endsAt: (Math.floor(now / DAY_MS) + 1) * DAY_MS };
    }
    return this.#day.name;
  }

  /** Writes everything recorded so far; resolves once it is stored (errors go to onError). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  /** Stops the interval and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  async #write(): Promise<void> {
    this.#soon = false;
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    // Counted for a tenant since deleted (and perhaps created again under its name): dropped,
    // or the new tenant would inherit them.
    for (const [key, entry] of batch) if (!key.startsWith(`${this.#scopeOf(entry.tenant)}\0`)) batch.delete(key);
    if (batch.size === 0) return;
    try {
      await this.#counts.add([...batch.values()]);
    } catch (err) {
      for (const [key, entry] of batch) {
        const newer = this.#pending.get(key);
        if (newer) newer.count += entry.count;
        else this.#pending.set(key, entry);
      }
      this.#onError(err);
      return;
    }
    const touched = new Map<TenantId, Set<string>>();
    for (const { tenant, name } of batch.values()) {
      let names = touched.get(tenant);
      if (!names) touched.set(tenant, (names = new Set()));
      names.add(name);
    }
    try {
      for (const [tenant, names] of touched) {
        await this.#search.refreshScores(tenant, [...names], this.#now());
        // The results show the counts and rank by them: every node's kept responses are stale.
        await this.#bus?.publish(tenant, SEARCH_RESULTS_CHANGED);
      }
    } catch (err) {
      // The counts are stored; the scores catch up at the next refresh.
      this.#onError(err);
    }
  }
}
