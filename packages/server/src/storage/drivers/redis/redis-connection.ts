import { Redis } from 'ioredis';
import { silentLog, type StorageLog } from '../../storage-log.js';
import type { RedisLocation } from './redis-location.js';

/**
 * The process's connections to Redis, shared by everything that uses it (invalidation bus, rate
 * limits). Redis is never on the critical path: commands fail at once while it is down (no
 * offline queue), callers fall back, ioredis reconnects on its own, and the log says "down"
 * once per outage and "back" once when it returns.
 */
export class RedisConnection {
  readonly location: RedisLocation;
  /** For commands; a subscribing connection cannot send them. */
  readonly commands: Redis;
  readonly #log: StorageLog;
  readonly #clients: Redis[] = [];
  #down = false;
  #closing = false;

  constructor(location: RedisLocation, log: StorageLog = silentLog) {
    this.location = location;
    this.#log = log;
    this.commands = this.client('commands');
  }

  /** True when commands can be sent now. */
  get ready(): boolean {
    return this.commands.status === 'ready';
  }

  /** A further connection (subscribers need their own), watched like the first. */
  client(role: string): Redis {
    const client = new Redis(this.location.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      autoResubscribe: false,
      // Retry forever, at most every two seconds: Redis coming back must be noticed soon.
      retryStrategy: (times) => Math.min(times * 100, 2000),
      connectionName: `pkg-registry-${role}`,
    });
    client.on('error', (err: Error) => this.#markDown(err));
    client.on('close', () => this.#markDown(new Error('connection closed')));
    client.on('ready', () => this.#markUp());
    this.#clients.push(client);
    return client;
  }

  /** Resolves when the command connection is ready, or after `timeoutMs` (then Redis is down). */
  async waitUntilReady(timeoutMs: number): Promise<boolean> {
    if (this.ready) return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.commands.off('ready', onReady);
        resolve(false);
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.commands.once('ready', onReady);
    });
  }

  /** Readiness: a round trip to Redis. */
  async ping(): Promise<void> {
    await this.commands.ping();
  }

  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#clients.map((client) => client.quit().catch(() => client.disconnect())));
  }

  #markDown(err: Error): void {
    if (this.#closing || this.#down) return;
    this.#down = true;
    this.#log.warn(
      { err: { message: err.message }, redis: redactRedisUrl(this.location.url) },
      'Redis is unreachable: rate limits are counted per node and caches are bypassed until it is back',
    );
  }

  #markUp(): void {
    if (!this.#down || !this.#clients.every((client) => client.status === 'ready')) return;
    this.#down = false;
    this.#log.info({ redis: redactRedisUrl(this.location.url) }, 'Redis is reachable again');
  }
}

export function redactRedisUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
