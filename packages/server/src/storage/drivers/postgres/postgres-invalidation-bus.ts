import type pg from 'pg';
import { BusFanout } from '../../bus-fanout.js';
import { silentLog, type StorageLog } from '../../storage-log.js';
import type { InvalidationBus, TenantId } from '../../ports.js';
import { createClient, type PgLocation } from './pg-connection.js';

const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * Invalidation over PostgreSQL LISTEN/NOTIFY, for deployments without Redis. One session stays
 * open to listen and is reopened when it drops; notifications go out through the store's pool.
 * The channel is per schema, so registries sharing a database do not hear each other.
 */
export class PostgresInvalidationBus implements InvalidationBus {
  readonly #location: PgLocation;
  readonly #pool: pg.Pool;
  readonly #log: StorageLog;
  readonly #channel: string;
  readonly #fanout = new BusFanout();
  #listener: pg.Client | undefined;
  #listening = false;
  #closed = false;
  #failures = 0;
  #reconnectTimer: NodeJS.Timeout | undefined;

  constructor(location: PgLocation, pool: pg.Pool, log: StorageLog = silentLog) {
    this.#location = location;
    this.#pool = pool;
    this.#log = log;
    this.#channel = `pkg_registry_invalidate_${location.schema}`.slice(0, 63);
  }

  get connected(): boolean {
    return this.#listening;
  }

  /** Opens the listening session; when that fails the bus keeps trying in the background. */
  async start(): Promise<void> {
    await this.#connect();
  }

  async publish(tenant: TenantId, name: string): Promise<void> {
    this.#fanout.changed(tenant, name);
    await this.#pool.query('SELECT pg_notify($1, $2)', [this.#channel, this.#fanout.encode(tenant, name)]).catch(() => undefined);
  }

  subscribe(listener: (tenant: TenantId, name: string) => void): void {
    this.#fanout.onChange(listener);
  }

  subscribeReset(listener: () => void): void {
    this.#fanout.onReset(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    clearTimeout(this.#reconnectTimer);
    await this.#listener?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = createClient(this.#location);
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload !== undefined) this.#fanout.receive(message.payload);
    });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    this.#listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#channel}"`);
    } catch (err) {
      if (this.#failures === 0) {
        this.#log.warn({ err: { message: (err as Error).message } }, 'cannot listen for invalidations on PostgreSQL: retrying');
      }
      this.#lost(client);
      return;
    }
    if (this.#failures > 0) this.#log.info({}, 'listening for invalidations on PostgreSQL again');
    this.#failures = 0;
    this.#listening = true;
    // Notifications sent while nobody listened are lost: whatever was cached may be stale.
    this.#fanout.reset();
  }

  #lost(client: pg.Client): void {
    if (client !== this.#listener || this.#closed) return;
    this.#listener = undefined;
    client.end().catch(() => undefined);
    if (this.#listening) {
      this.#listening = false;
      this.#log.warn({}, 'lost the PostgreSQL session listening for invalidations: reconnecting');
      this.#fanout.reset();
    }
    this.#failures++;
    const delay = Math.min(100 * 2 ** Math.min(this.#failures, 5), MAX_RECONNECT_DELAY_MS);
    this.#reconnectTimer = setTimeout(() => void this.#connect(), delay);
    this.#reconnectTimer.unref();
  }
}
