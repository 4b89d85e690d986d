import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCounterStore } from '../../src/storage/drivers/memory/memory-counter-store.js';

describe('MemoryCounterStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts in fixed windows opened by the first count, per key and per window length', async () => {
    const store = new MemoryCounterStore();
    const start = Date.now();
    expect(store.incrementNow('a', 60)).toEqual({ count: 1, resetAt: start + 60_000 });
    expect(await store.increment('a', 60)).toEqual({ count: 2, resetAt: start + 60_000 });
    expect(store.incrementNow('a', 3600).count).toBe(1);
    expect(store.incrementNow('b', 60).count).toBe(1);
    expect(await store.peek('a', 60)).toEqual({ count: 2, resetAt: start + 60_000 });

    vi.setSystemTime(start + 60_000);
    expect(await store.peek('a', 60)).toBeUndefined();
    expect(store.incrementNow('a', 60)).toEqual({ count: 1, resetAt: start + 120_000 });
    await store.reset('a', 60);
    expect(await store.peek('a', 60)).toBeUndefined();
    await store.close();
  });
});
