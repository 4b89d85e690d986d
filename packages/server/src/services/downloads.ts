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
  /**
   * How often the search rows (download windows and scores) of the packages counted since are
   * refreshed and that is announced on the bus. `flush` does it at once.
   */
  scoreIntervalMs?: number;
  /** Buffered (package, version, day) entries that trigger a write before the interval ends. */
  maxPending?: number;
  onError?: (err: unknown) => void;
}

const DAY_MS = 86_400_000;

/**
 * Increments written per transaction. On SQLite a transaction holds the event loop for as long as
 * it runs, and a busy registry counts thousands of (package, version) pairs a second: written in
 * one, every request waited for all of them.
 */
const WRITE_CHUNK = 200;

/** Lets requests run between two pieces of a long write (on SQLite each piece is synchronous). */
const letRequestsRun = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Buffers counts in memory (`record` is a map increment, no IO) and writes them every
 * `flushIntervalMs`, in transactions of WRITE_CHUNK increments with requests let run between
 * them. The search rows of the packages counted (their download windows and scores) are
 * refreshed less often, every `scoreIntervalMs`, and that is announced on the bus: a search
 * result's counts lag by at most that long, and each refresh, and every node's refresh of the
 * search responses it keeps, is paid once per interval rather than once a second. A failed
 * write keeps the counts, and a failed refresh the names, for the next attempt.
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
  #scoreTimer: NodeJS.Timeout | undefined;
  /** Packages whose counts were written since their search rows were last refreshed, by tenant. */
  #unscored = new Map<TenantId, Set<string>>();
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
    this.#timer = setInterval(() => void this.#enqueue(() => this.#write()), options.flushIntervalMs ?? 1000);
    this.#timer.unref();
    this.#scoreTimer = setInterval(() => void this.#enqueue(() => this.#refreshScores()), options.scoreIntervalMs ?? 60_000);
    this.#scoreTimer.unref();
  }

  record(tenant: TenantId, name: string, version: string): void {
    const day = this.#today();
    const key = `${this.#scopeOf(tenant)}\0${name}\0${version}\0${day}`;
    const entry = this.#pending.get(key);
    if (entry) entry.count++;
    else this.#pending.set(key, { tenant, name, version, day, count: 1 });
    if (this.#pending.size >= this.#maxPending && !this.#soon) {
      this.#soon = true;
      setImmediate(() => void this.#enqueue(() => this.#write()));
    }
  }
  #today(): string {
    const now = this.#now().getTime();
    if (now >= this.#day.endsAt || now < this.#day.endsAt - DAY_MS) {
      this.#day = { name: utcDay(new Date(now)), endsAt: (Math.floor(now / DAY_MS) + 1) * DAY_MS };
    }
    return this.#day.name;
  }

  /**
   * Writes everything recorded so far and refreshes the search rows of what was counted;
   * resolves once both are stored (errors go to onError).
   */
  flush(): Promise<void> {
    return this.#enqueue(async () => {
      await this.#write();
      await this.#refreshScores();
    });
  }

  /** Stops the intervals and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    clearInterval(this.#scoreTimer);
    this.#timer = this.#scoreTimer = undefined;
    await this.flush();
  }

  /** Runs `step` after the steps queued before it: writes and refreshes never overlap. */
  #enqueue(step: () => Promise<void>): Promise<void> {
    this.#flushing = this.#flushing.then(step);
    return this.#flushing;
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
    const entries = [...batch];
    for (let start = 0; start < entries.length; start += WRITE_CHUNK) {
      if (start > 0) await letRequestsRun();
      const chunk = entries.slice(start, start + WRITE_CHUNK);
      try {
        await this.#counts.add(chunk.map(([, entry]) => entry));
      } catch (err) {
        // What was written stays written; this piece and the rest are tried again next time.
        for (const [key, entry] of entries.slice(start)) {
          const newer = this.#pending.get(key);
          if (newer) newer.count += entry.count;
          else this.#pending.set(key, entry);
        }
        this.#onError(err);
        return;
      }
      for (const [, { tenant, name }] of chunk) this.#unscoredOf(tenant).add(name);
    }
  }

  #unscoredOf(tenant: TenantId): Set<string> {
    let names = this.#unscored.get(tenant);
    if (!names) this.#unscored.set(tenant, (names = new Set()));
    return names;
  }

  async #refreshScores(): Promise<void> {
    if (this.#unscored.size === 0) return;
    const unscored = this.#unscored;
    this.#unscored = new Map();
    for (const [tenant, names] of unscored) {
      try {
        // The results show the counts and rank by them: when any changed, every node's kept
        // responses are stale.
        if (await this.#search.refreshScores(tenant, [...names], this.#now()))
          await this.#bus?.publish(tenant, SEARCH_RESULTS_CHANGED);
      } catch (err) {
        // The counts are stored; these packages' rows are refreshed next time.
        for (const name of names) this.#unscoredOf(tenant).add(name);
        this.#onError(err);
      }
    }
  }
}
