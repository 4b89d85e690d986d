import { utcDay } from '../search/utc-days.js';
import { GLOBAL_TENANT, type AccountStores, type InvalidationBus, type SearchIndex } from '../storage/ports.js';
import { SEARCH_RESULTS_CHANGED } from './search-changes.js';

export interface ScoreRefresherOptions {
  /** How often to look whether the UTC day changed. */
  checkIntervalMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * Maintenance and the download windows depend on the date, so every registry's scores are
 * recomputed once a UTC day: looked at on start-up and every minute, done when the day of the
 * last refresh (kept in the index, so restarts and other processes count) is not today.
 */
export class ScoreRefresher {
  readonly #search: SearchIndex;
  readonly #bus: InvalidationBus | undefined;
  readonly #registry: AccountStores;
  readonly #now: () => Date;
  readonly #onError: (err: unknown) => void;
  readonly #timer: NodeJS.Timeout;
  #refreshedDay: string | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(
    deps: { search: SearchIndex; registry: AccountStores; now: () => Date; bus?: InvalidationBus },
    options: ScoreRefresherOptions = {},
  ) {
    this.#search = deps.search;
    this.#bus = deps.bus;
    this.#registry = deps.registry;
    this.#now = deps.now;
    this.#onError = options.onError ?? (() => undefined);
    this.#timer = setInterval(() => void this.refreshIfNewDay(), options.checkIntervalMs ?? 60_000);
    this.#timer.unref();
    setImmediate(() => void this.refreshIfNewDay());
  }

  /** Refreshes every registry when the day changed since the last refresh (or none ran yet). */
  refreshIfNewDay(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#running) return this.#running;
    const day = utcDay(this.#now());
    if (day === this.#refreshedDay) return Promise.resolve();
    this.#running = this.#refreshAll()
      .then(() => {
        this.#refreshedDay = day;
      })
      .catch(this.#onError)
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  async #refreshAll(): Promise<void> {
    const tenants = [GLOBAL_TENANT, ...(await this.#registry.tenants.list()).map((t) => t.name)];
    for (const tenant of tenants) {
      if (this.#closed) return;
      const now = this.#now();
      if ((await this.#search.scoresRefreshedOn(tenant)) === utcDay(now)) continue;
      if (await this.#search.refreshScores(tenant, null, now)) await this.#bus?.publish(tenant, SEARCH_RESULTS_CHANGED);
    }
  }
}
