import { RateLimiterMemory, type RateLimiterLike } from 'rate-limiter-flexible';

/** A counter in its current window. */
export interface CounterState {
  count: number;
  /** Unix time in milliseconds at which the window ends and the counter starts over. */
  resetAt: number;
}

/**
 * Fixed-window counters: rate limits and login throttling count through this, nothing else.
 * The embedded default counts in process memory; the scale-out profile plugs in a shared store
 * (Redis) so that every server process sees the same counts.
 */
export interface CounterStore {
  /** Adds one to `key`'s counter, opening a window of `windowSeconds` when none is open. */
  increment(key: string, windowSeconds: number): Promise<CounterState>;
  /** The counter without counting; undefined when no window is open. */
  peek(key: string, windowSeconds: number): Promise<CounterState | undefined>;
  /** Forgets the counter (a successful login clears the account's failures). */
  reset(key: string, windowSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** Never reached: the store only counts, the rate-limit service compares against the limit. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/**
 * A CounterStore on rate-limiter-flexible limiters, one per window length, built by a factory:
 * `RateLimiterMemory` here; for Redis, `RateLimiterRedis` with a `RateLimiterMemory` as its
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

/** The embedded default: counters in this process's memory. */
export function createMemoryCounterStore(): CounterStore {
  return new RateLimiterCounterStore(
    (windowSeconds, points) => new RateLimiterMemory({ points, duration: windowSeconds, keyPrefix: `w${windowSeconds}` }),
  );
}
