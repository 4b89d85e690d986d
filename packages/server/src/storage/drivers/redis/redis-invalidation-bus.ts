import type { Redis } from 'ioredis';
import { BusFanout } from '../../bus-fanout.js';
import type { InvalidationBus, TenantId } from '../../ports.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * Invalidation over Redis pub/sub. A publish is delivered locally at once and sent to the other
 * nodes when Redis is up; when it is down the write has still happened, `connected` is false (a
 * cache must not serve from memory) and every node resets its caches once the channel is back.
 */
export class RedisInvalidationBus implements InvalidationBus {
  readonly #redis: RedisConnection;
  readonly #subscriber: Redis;
  readonly #channel: string;
  readonly #fanout = new BusFanout();
  #subscribed = false;

  constructor(redis: RedisConnection) {
    this.#redis = redis;
    this.#channel = `${redis.location.prefix}invalidate`;
    this.#subscriber = redis.client('subscriber');
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#channel) this.#fanout.receive(message);
    });
    this.#subscriber.on('ready', () => void this.#subscribe());
    this.#subscriber.on('close', () => {
      if (!this.#subscribed) return;
      this.#subscribed = false;
      this.#fanout.reset();
    });
  }

  get connected(): boolean {
    return this.#subscribed;
  }

  /** Resolves once subscribed, or after `timeoutMs` (the bus then keeps trying on its own). */
  async waitUntilConnected(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#subscribed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.#subscribed;
  }

  async publish(tenant: TenantId, name: string): Promise<void> {
    this.#fanout.changed(tenant, name);
    if (!this.#redis.ready) return;
    await this.#redis.commands.publish(this.#channel, this.#fanout.encode(tenant, name)).catch(() => undefined);
  }

  subscribe(listener: (tenant: TenantId, name: string) => void): void {
    this.#fanout.onChange(listener);
  }

  subscribeReset(listener: () => void): void {
    this.#fanout.onReset(listener);
  }

  /** The connection is closed by its owner (RedisConnection), which other components share. */
  async close(): Promise<void> {
    this.#subscribed = false;
  }

  async #subscribe(): Promise<void> {
    try {
      await this.#subscriber.subscribe(this.#channel);
    } catch {
      return; // the connection dropped again; the next 'ready' retries
    }
    this.#subscribed = true;
    // Messages sent while we were away are lost: whatever was cached then may be stale.
    this.#fanout.reset();
  }
}
