import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CounterStore } from '../../src/storage/counter-store.js';

/** A fresh, empty place to count in: stores opened on it share their counts (one deployment). */
export interface CounterSpace {
  open(): Promise<CounterStore>;
  destroy(): Promise<void>;
}

export interface CounterContractOptions {
  /** Whether two stores opened on one space see each other's counts (false in process memory). */
  shared: boolean;
}

/** The definition of "a counter store works" for rate limits and login throttling. */
export function counterStoreContract(
  driver: string,
  freshSpace: () => Promise<CounterSpace>,
  options: CounterContractOptions,
): void {
  describe(`CounterStore contract: ${driver}`, () => {
    let space: CounterSpace;
    let opened: CounterStore[];

    async function open(): Promise<CounterStore> {
      const store = await space.open();
      opened.push(store);
      return store;
    }

    beforeEach(async () => {
      space = await freshSpace();
      opened = [];
    });
    afterEach(async () => {
      for (const store of opened) await store.close();
      await space.destroy();
    });

    it('counts per key from one, in a window that ends windowSeconds after the first count', async () => {
      const store = await open();
      const before = Date.now();
      const first = await store.increment('a', 60);
      expect(first.count).toBe(1);
      expect(first.resetAt).toBeGreaterThanOrEqual(before + 59_000);
      expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 60_000);
      expect((await store.increment('a', 60)).count).toBe(2);
      expect((await store.increment('b', 60)).count).toBe(1);
    });

    it('keeps windows of different lengths apart for one key', async () => {
      const store = await open();
      await store.increment('a', 60);
      await store.increment('a', 60);
      expect((await store.increment('a', 3600)).count).toBe(1);
      expect((await store.peek('a', 60))?.count).toBe(2);
    });

    it('peeks without counting, and knows no window that was never opened', async () => {
      const store = await open();
      expect(await store.peek('never', 60)).toBeUndefined();
      await store.increment('a', 60);
      expect((await store.peek('a', 60))?.count).toBe(1);
      expect((await store.peek('a', 60))?.count).toBe(1);
    });

    it('takes one back in the open window, and opens none by doing so', async () => {
      const store = await open();
      await store.increment('a', 60);
      await store.increment('a', 60);
      await store.decrement('a', 60);
      expect((await store.peek('a', 60))?.count).toBe(1);
      await store.decrement('none', 60);
      expect(await store.peek('none', 60)).toBeUndefined();
    });

    it('forgets a key on reset, and counts it again from one', async () => {
      const store = await open();
      await store.increment('a', 60);
      await store.increment('a', 60);
      await store.reset('a', 60);
      expect(await store.peek('a', 60)).toBeUndefined();
      expect((await store.increment('a', 60)).count).toBe(1);
    });

    it('starts over once the window has ended', async () => {
      const store = await open();
      await store.increment('a', 1);
      await store.increment('a', 1);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await store.peek('a', 1)).toBeUndefined();
      expect((await store.increment('a', 1)).count).toBe(1);
    });

    it('counts concurrent increments once each', async () => {
      const store = await open();
      const counts = await Promise.all(Array.from({ length: 20 }, () => store.increment('burst', 60)));
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it(options.shared ? 'shares counts between stores on one space (every node sees them)' : 'counts per store', async () => {
      const one = await open();
      const two = await open();
      await one.increment('a', 60);
      expect((await two.increment('a', 60)).count).toBe(options.shared ? 2 : 1);
    });
  });
}
