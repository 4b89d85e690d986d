import type { CounterState, CounterStore } from '../../counter-store.js';

interface Window {
  count: number;
  resetAt: number;
}

/** How often windows that have ended are dropped. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The embedded default: fixed windows in a map per window length, opened by the first count
 * and dropped by a periodic sweep once they have ended (so one-off clients do not accumulate).
 */
export class MemoryCounterStore implements CounterStore {
  readonly #windows = new Map<number, Map<string, Window>>();
  readonly #sweeper: NodeJS.Timeout;

  constructor() {
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_INTERVAL_MS);
    this.#sweeper.unref();
  }

  incrementNow(key: string, windowSeconds: number): CounterState {
    const windows = this.#of(windowSeconds);
    const now = Date.now();
    let window = windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowSeconds * 1000 };
      windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetAt: window.resetAt };
  }

  async increment(key: string, windowSeconds: number): Promise<CounterState> {
    return this.incrementNow(key, windowSeconds);
  }

  async decrement(key: string, windowSeconds: number): Promise<void> {
    const window = this.#windows.get(windowSeconds)?.get(key);
    if (window !== undefined && window.resetAt > Date.now() && window.count > 0) window.count--;
  }

  async peek(key: string, windowSeconds: number): Promise<CounterState | undefined> {
    const window = this.#windows.get(windowSeconds)?.get(key);
    if (window === undefined || window.resetAt <= Date.now()) return undefined;
    return { count: window.count, resetAt: window.resetAt };
  }

  async reset(key: string, windowSeconds: number): Promise<void> {
    this.#windows.get(windowSeconds)?.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#windows.clear();
  }

  #of(windowSeconds: number): Map<string, Window> {
    let windows = this.#windows.get(windowSeconds);
    if (windows === undefined) this.#windows.set(windowSeconds, (windows = new Map<string, Window>()));
    return windows;
  }

  #sweep(): void {
    const now = Date.now();
    for (const windows of this.#windows.values()) {
      for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
    }
  }
}
