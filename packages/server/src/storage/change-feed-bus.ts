import { BusFanout } from './bus-fanout.js';
import { silentLog, type StorageLog } from './storage-log.js';
import type { ChangeFeedPosition, InvalidationBus, PackageChangeFeed, TenantId } from './ports.js';

/** How often the log of writes is read: well within the second a cache entry may lag behind. */
const READ_EVERY_MS = 400;
/** How long the database keeps the log's rows. */
const KEPT_MS = 10 * 60_000;
/** A reader whose last read is older than this may have lost rows to pruning: it starts again. */
const BEHIND_MS = KEPT_MS / 2;
const PRUNE_EVERY_MS = 60_000;

export interface ChangeFeedBusOptions {
  log?: StorageLog;
  /** Milliseconds on a monotonic clock, the one caches compare `heardUntil` with. */
  clock?: () => number;
  readEveryMs?: number;
}

/**
 * A shared channel's bus, backed by the database's own log of package writes. The channel
 * (Redis, LISTEN/NOTIFY) tells the other nodes of a write at once; the log tells each of them
 * within a read or two of every write, whatever the channel lost, even the write whose node
 * died between its commit and its message. So a cache holds an entry for as long as the log has
 * been read recently (`heardUntil`) rather than rebuilding it every second, and its staleness
 * keeps the same bound.
 */
export class ChangeFeedBus implements InvalidationBus {
  readonly #inner: InvalidationBus;
  readonly #feed: PackageChangeFeed;
  readonly #log: StorageLog;
  readonly #clock: () => number;
  readonly #readEveryMs: number;
  readonly #fanout = new BusFanout();
  #position: ChangeFeedPosition | undefined;
  #heardUntil: number | undefined;
  #lastPrune: number;
  #failing = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> = Promise.resolve();

  constructor(inner: InvalidationBus, feed: PackageChangeFeed, options: ChangeFeedBusOptions = {}) {
    this.#inner = inner;
    this.#feed = feed;
    this.#log = options.log ?? silentLog;
    this.#clock = options.clock ?? (() => performance.now());
    this.#readEveryMs = options.readEveryMs ?? READ_EVERY_MS;
    this.#lastPrune = this.#clock();
  }

  /** The channel that tells of writes at once (Redis, LISTEN/NOTIFY). */
  get channel(): InvalidationBus {
    return this.#inner;
  }

  get connected(): boolean {
    return this.#inner.connected;
  }

  get heardUntil(): number | undefined {
    return this.#heardUntil;
  }

  /** Reads the log once (where it starts), then keeps reading it in the background. */
  async start(): Promise<void> {
    await this.readNow();
    this.#schedule();
  }

  publish(tenant: TenantId, name: string): Promise<void> {
    return this.#inner.publish(tenant, name);
  }

  subscribe(listener: (tenant: TenantId, name: string) => void): void {
    this.#inner.subscribe(listener);
    this.#fanout.onChange(listener);
  }

  subscribeReset(listener: () => void): void {
    this.#inner.subscribeReset(listener);
    this.#fanout.onReset(listener);
  }

  /** One read of the log, its writes told to the listeners (the background reads call it too). */
  readNow(): Promise<void> {
    this.#reading = this.#reading.then(() => this.#read());
    return this.#reading;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#reading;
    await this.#inner.close();
  }

  async #read(): Promise<void> {
    if (this.#closed) return;
    const startedAt = this.#clock();
    if (this.#heardUntil !== undefined && startedAt - this.#heardUntil > BEHIND_MS) this.#position = undefined;
    try {
      const starting = this.#position === undefined;
      const { changed, next } = await this.#feed.read(this.#position);
      // Read from a new place, the log says nothing of writes before it: whatever was cached
      // until now may have missed one of them, and is dropped.
      if (starting) this.#fanout.reset();
      for (const { tenant, name } of changed) this.#fanout.changed(tenant, name);
      this.#position = next;
      this.#heardUntil = startedAt;
      if (this.#failing) this.#log.info({}, 'reading the log of package writes again');
      this.#failing = false;
    } catch (err) {
      if (!this.#failing) {
        this.#log.warn(
          { err: { message: (err as Error).message } },
          'cannot read the log of package writes: cached documents expire after a second until it can',
        );
      }
      this.#failing = true;
    }
    if (startedAt - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = startedAt;
      await this.#feed.prune(KEPT_MS).catch(() => undefined);
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      void this.readNow().then(() => this.#schedule());
    }, this.#readEveryMs);
    this.#timer.unref();
  }
}
