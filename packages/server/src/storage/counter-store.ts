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
  /**
   * Optional: `increment` answered synchronously, for stores that count in process memory. The
   * rate limit counts every request with it, so a request needs no promise for it.
   */
  incrementNow?(key: string, windowSeconds: number): CounterState;
  /**
   * Takes one back from `key`'s counter in its current window (a refused publish is not a
   * publish); nothing when no window is open.
   */
  decrement(key: string, windowSeconds: number): Promise<void>;
  /** The counter without counting; undefined when no window is open. */
  peek(key: string, windowSeconds: number): Promise<CounterState | undefined>;
  /** Forgets the counter (a successful login clears the account's failures). */
  reset(key: string, windowSeconds: number): Promise<void>;
  close(): Promise<void>;
}
