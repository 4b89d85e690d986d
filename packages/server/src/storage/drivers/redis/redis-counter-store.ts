import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { CounterStore } from '../../counter-store.js';
import { RateLimiterCounterStore } from '../../rate-limiter-counter-store.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * Rate-limit and login-throttle counters shared by every node through Redis. While Redis is
 * unreachable each node counts on its own (the in-memory insurance limiter), so requests keep
 * being served and limited; the connection says so in the log once and comes back by itself.
 */
export function createRedisCounterStore(redis: RedisConnection): CounterStore {
  const prefix = `${redis.location.prefix}rl:`;
  return new RateLimiterCounterStore(
    (windowSeconds, points) =>
      new RateLimiterRedis({
        storeClient: redis.commands,
        points,
        duration: windowSeconds,
        keyPrefix: `${prefix}w${windowSeconds}`,
        // Not ready: count in memory at once instead of waiting for a reconnection.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ points, duration: windowSeconds, keyPrefix: `w${windowSeconds}` }),
      }),
  );
}
