/**
 * The download recorder writes counts often and in pieces, and refreshes the search rows of what
 * it counted less often: counts never lost or added twice, scores caught up by `flush`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, loadConfig, type Storage } from '@pkg/server';
import { buildStoredPackage, seedPackage, SwitchableBus } from '@pkg/testkit';
import { parseSearchText } from '../../src/search/search-query.js';
import { BatchingDownloadRecorder } from '../../src/services/downloads.js';
import { SEARCH_RESULTS_CHANGED } from '../../src/services/search-changes.js';
import type { DownloadCountStore, DownloadIncrement } from '../../src/storage/ports.js';
import { utcDay } from '../../src/search/utc-days.js';

let dataDir: string;
let storage: Storage;
const today = utcDay(new Date());

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-registry-download-recorder-'));
  storage = await createStorage(loadConfig({ flags: { data: dataDir }, env: {} }));
  await seedPackage(storage, buildStoredPackage('com.count.scored', { description: 'counted scored' }));
});
afterAll(async () => {
  await storage.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function downloadsOf(name: string): Promise<number> {
  const days = await storage.downloadCounts.perDay('', name, today, today);
  return days.reduce((sum, day) => sum + day.downloads, 0);
}

async function monthlyInSearch(name: string): Promise<number | undefined> {
  const page = await storage.search.search('', parseSearchText(name), { size: 5, from: 0 });
  return page.hits.find((hit) => hit.name === name)?.downloads.monthly;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200 && !(await check()); attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('BatchingDownloadRecorder', () => {
  it('writes counts at its interval and refreshes the search rows (and announces them) only at the score interval or a flush', async () => {
    const bus = new SwitchableBus();
    const announced: string[] = [];
    bus.subscribe((_tenant, name) => announced.push(name));
    const recorder = new BatchingDownloadRecorder(
      { counts: storage.downloadCounts, search: storage.search, now: () => new Date(), bus },
      { flushIntervalMs: 20, scoreIntervalMs: 3_600_000 },
    );
    try {
      const before = await monthlyInSearch('com.count.scored');
      expect(before).toBe(0);
      recorder.record('', 'com.count.scored', '1.0.0');
      recorder.record('', 'com.count.scored', '1.0.0');
      await until(async () => (await downloadsOf('com.count.scored')) === 2);
      expect(await downloadsOf('com.count.scored')).toBe(2);
      // Counted, but the search row waits for the score interval, and nothing is announced.
      expect(await monthlyInSearch('com.count.scored')).toBe(0);
      expect(announced).toEqual([]);
      await recorder.flush();
      expect(await monthlyInSearch('com.count.scored')).toBe(2);
      expect(announced).toEqual([SEARCH_RESULTS_CHANGED]);
      // Nothing counted since: a flush refreshes and announces nothing.
      await recorder.flush();
      expect(announced).toEqual([SEARCH_RESULTS_CHANGED]);
    } finally {
      await recorder.close();
    }
  });

  it('writes a large batch in pieces, and after a failed piece writes the rest once', async () => {
    const names = Array.from({ length: 1234 }, (_, i) => `com.count.many${i}`);
    let adds = 0;
    let failNext = false;
    const counts: DownloadCountStore = {
      ...storage.downloadCounts,
      add: async (increments: readonly DownloadIncrement[]) => {
        adds++;
        if (failNext) {
          failNext = false;
          throw new Error('the database went away');
        }
        await storage.downloadCounts.add(increments);
        // The second piece of the first write fails: the first is stored, the rest is not.
        if (adds === 1) failNext = true;
      },
    };
    const errors: unknown[] = [];
    const recorder = new BatchingDownloadRecorder(
      { counts, search: storage.search, now: () => new Date() },
      { flushIntervalMs: 3_600_000, scoreIntervalMs: 3_600_000, maxPending: 100_000, onError: (err) => errors.push(err) },
    );
    try {
      for (const name of names) {
        recorder.record('', name, '1.0.0');
        recorder.record('', name, '1.0.0');
      }
      await recorder.flush();
      expect(errors).toHaveLength(1);
      expect(adds).toBe(2);
      const written = await Promise.all(names.map(downloadsOf));
      const stored = written.filter((n) => n === 2).length;
      expect(stored).toBeGreaterThan(0);
      expect(stored).toBeLessThan(names.length);
      expect(written.filter((n) => n !== 0 && n !== 2)).toEqual([]);

      await recorder.flush();
      // More than one piece again, and every package counted exactly twice.
      expect(adds).toBeGreaterThan(3);
      expect(await Promise.all(names.map(downloadsOf))).toEqual(names.map(() => 2));
      expect(errors).toHaveLength(1);
    } finally {
      await recorder.close();
    }
  });
});
