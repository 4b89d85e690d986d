import type { RateLimiterLike } from 'rate-limiter-flexible';
import type { CounterState, CounterStore } from './counter-store.js';

/** Never reached: the store only counts, the rate-limit service compares against the limit. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/**
 * A CounterStore on rate-limiter-flexible limiters, one per window length, built by a factory:
 * for Redis, `RateLimiterRedis` with a `RateLimiterMemory` as its
 * `insuranceLimiter`, which keeps counting in process while Redis is unreachable.
 * Limiters are given UNLIMITED points so that they never reject; limits are per tenant and
 * compared by the caller.
 */
export class RateLimiterCounterStore implements CounterStore {
  readonly #limiters = new Map<number, RateLimiterLike>();
  readonly #makeLimiter: (windowSeconds: number, points: number) => RateLimiterLike;

  constructor(makeLimiter: (windowSeconds: number, points: number) => RateLimiterLike) {
    this.#makeLimiter = makeLimiter;
  }

  async increment(key: string, windowSeconds: number): Promise<CounterState> {
    const res = await this.#limiter(windowSeconds).penalty(key, 1);
    return { count: res.consumedPoints, resetAt: resetAtOf(res.msBeforeNext, windowSeconds) };
  }

  async decrement(key: string, windowSeconds: number): Promise<void> {
    const limiter = this.#limiter(windowSeconds);
    const res = await limiter.get(key);
    // No open window: nothing to take back (a reward would open one with a negative count).
    if (!res || res.msBeforeNext <= 0 || res.consumedPoints <= 0) return;
    await limiter.reward(key, 1);
  }

  async peek(key: string, windowSeconds: number): Promise<CounterState | undefined> {
    const res = await this.#limiter(windowSeconds).get(key);
    if (!res || res.msBeforeNext === 0) return undefined;
    return { count: res.consumedPoints, resetAt: resetAtOf(res.msBeforeNext, windowSeconds) };
  }

  async reset(key: string, windowSeconds: number): Promise<void> {
    await this.#limiter(windowSeconds).delete(key);
  }

  async close(): Promise<void> {
    this.#limiters.clear();
  }

  #limiter(windowSeconds: number): RateLimiterLike {
    let limiter = this.#limiters.get(windowSeconds);
    if (!limiter) {
      limiter = this.#makeLimiter(windowSeconds, UNLIMITED);
      this.#limiters.set(windowSeconds, limiter);
    }
    return limiter;
  }
}

function resetAtOf(msBeforeNext: number, windowSeconds: number): number {
  return Date.now() + (msBeforeNext >= 0 ? msBeforeNext : windowSeconds * 1000);
}
