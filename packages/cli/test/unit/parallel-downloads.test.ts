import { describe, expect, it } from 'vitest';
import { eachBounded, oneLineAtATime } from '../../src/cache/parallel-downloads.js';
import { Reporter } from '../../src/output/reporter.js';
import { transferProgress } from '../../src/output/transfer-progress.js';
import { capture } from '../support/deps.js';

/** A promise settled from outside, to hold work open while a test looks. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('eachBounded', () => {
  it('runs at most `limit` at a time and returns the results in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const gates = Array.from({ length: 7 }, gate);
    const result = eachBounded([0, 1, 2, 3, 4, 5, 6], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await gates[n]!.opened;
      running--;
      return n * 10;
    });
    await Promise.resolve();
    expect(running).toBe(3);
    // Finishing out of order: the results keep the items' order.
    for (const n of [2, 0, 1, 6, 5, 4, 3]) {
      gates[n]!.open();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await result).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(most).toBe(3);
  });

  it('starts nothing after a failure, waits for what runs, then throws the first failure', async () => {
    const started: number[] = [];
    const slow = gate();
    let slowEnded = false;
    const result = eachBounded([0, 1, 2, 3, 4], 2, async (n) => {
      started.push(n);
      if (n === 0) {
        await slow.opened;
        slowEnded = true;
        return n;
      }
      throw new Error(`failed ${n}`);
    });
    const settled = result.catch((err: Error) => err.message);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    slow.open();
    expect(await settled).toBe('failed 1');
    expect(slowEnded).toBe(true);
    expect(started).toEqual([0, 1]);
  });

  it('throws the failure of the earliest item, whichever ended first', async () => {
    const slow = gate();
    const result = eachBounded([0, 1], 2, async (n) => {
      if (n === 0) await slow.opened;
      throw new Error(`failed ${n}`);
    });
    const settled = result.catch((err: Error) => err.message);
    await new Promise((resolve) => setImmediate(resolve));
    slow.open();
    expect(await settled).toBe('failed 0');
  });

  it('returns an empty list for no items', async () => {
    expect(await eachBounded([], 4, async () => 1)).toEqual([]);
  });
});

describe('oneLineAtATime', () => {
  it('gives the terminal line to one download at a time: the others draw nothing meanwhile', () => {
    const stderr = capture(true);
    const reporter = new Reporter({ stdout: capture(), stderr, json: false, verbose: false });
    let time = 0;
    const line = oneLineAtATime();
    const progressOf = (label: string) => line(() => transferProgress(reporter, true, 1000, label, () => time));
    const first = progressOf('com.vendor.a@1.0.0')(1000);
    const second = progressOf('com.vendor.b@1.0.0')(1000);
    time = 1500;
    first.advance(100);
    second.advance(100);
    expect(stderr.text()).toContain('com.vendor.a@1.0.0');
    expect(stderr.text()).not.toContain('com.vendor.b@1.0.0');
    first.done();
    second.done();
    // Once the first ended, the next download to start owns the line.
    const third = progressOf('com.vendor.c@1.0.0')(1000);
    time = 3000;
    third.advance(100);
    third.done();
    expect(stderr.text()).toContain('com.vendor.c@1.0.0');
  });
});
