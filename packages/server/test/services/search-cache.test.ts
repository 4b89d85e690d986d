/** The search service's response cache never serves a stale response, in one process or several. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, loadConfig, type Storage } from '@pkg/server';
import { buildStoredPackage, seedPackage, SwitchableBus } from '@pkg/testkit';
import { serverDeps } from '../../src/deps.js';
import { parseSearchText } from '../../src/search/search-query.js';
import { BatchingDownloadRecorder } from '../../src/services/downloads.js';
import { ScoreRefresher } from '../../src/services/score-refresher.js';
import { SEARCH_RESULTS_CHANGED } from '../../src/services/search-changes.js';
import { SearchService } from '../../src/services/search-service.js';
import type { SearchIndex } from '../../src/storage/ports.js';
import type { SearchResponse } from '@pkg/protocol';

let dataDir: string;
let first: Storage;
let second: Storage;

function config(searchCache: number) {
  return loadConfig({ flags: { data: dataDir, searchCache: String(searchCache) }, env: {} });
}

/** The store's own index, counting the searches that reach it. */
function countingIndex(index: SearchIndex): SearchIndex & { reads: number } {
  const counting = {
    reads: 0,
    search: (...args: Parameters<SearchIndex['search']>) => {
      counting.reads++;
      return index.search(...args);
    },
    listSummaries: index.listSummaries.bind(index),
    ranked: index.ranked.bind(index),
    refreshScores: index.refreshScores.bind(index),
    scoresRefreshedOn: index.scoresRefreshedOn.bind(index),
    ...(index.resultsVersion ? { resultsVersion: index.resultsVersion.bind(index) } : {}),
  };
  return counting;
}

function service(storage: Storage, searchCache: number): { search: SearchService; index: SearchIndex & { reads: number } } {
  const index = countingIndex(storage.search);
  return { search: new SearchService(serverDeps(config(searchCache), { ...storage, search: index })), index };
}

const request = { query: parseSearchText('shared'), size: 20, from: 0 };
const names = (response: { objects: { package: { name: string } }[] }) => response.objects.map((o) => o.package.name).sort();

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-registry-search-cache-'));
  // Two stores on one database file: two server processes sharing the embedded default.
  first = await createStorage(config(20_000));
  second = await createStorage(config(20_000));
});
afterAll(async () => {
  await first.close();
  await second.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('search response cache', () => {
  it('answers a repeated search without the index, and a write of this process drops it', async () => {
    const { search, index } = service(first, 20_000);
    await seedPackage(first, buildStoredPackage('com.cache.one', { description: 'shared thing' }));
    const response = await search.search('', request);
    expect(response.total).toBe(1);
    expect(index.reads).toBe(1);
    const again = await search.search('', request);
    expect(again.objects).toEqual(response.objects);
    expect(index.reads).toBe(1);
    await seedPackage(first, buildStoredPackage('com.cache.two', { description: 'shared too' }));
    expect((await search.search('', request)).total).toBe(2);
    expect(index.reads).toBe(2);
  });

  it('runs one read of the index for searches that miss at the same moment, and a new one after a write', async () => {
    const { search, index } = service(first, 20_000);
    // A word of its own: the other tests count what 'shared' finds.
    const request = { query: parseSearchText('burst'), size: 20, from: 0 };
    await seedPackage(first, buildStoredPackage('com.cache.burst', { description: 'burst' }));
    const burst = await Promise.all(Array.from({ length: 8 }, () => search.search('', request)));
    expect(index.reads).toBe(1);
    for (const response of burst) expect(names(response)).toEqual(names(burst[0]!));
    expect(names(burst[0]!)).toContain('com.cache.burst');
    await seedPackage(first, buildStoredPackage('com.cache.burst2', { description: 'burst' }));
    const after = await Promise.all(Array.from({ length: 8 }, () => search.search('', request)));
    expect(index.reads).toBe(2);
    expect(names(after[0]!)).toContain('com.cache.burst2');
  });

  it('drops it when another process writes to the same database', async () => {
    const { search } = service(first, 20_000);
    expect((await search.search('', request)).total).toBe(2);
    await seedPackage(second, buildStoredPackage('com.cache.three', { description: 'shared as well' }));
    expect((await search.search('', request)).total).toBe(3);
    await second.packages.package('', 'com.cache.one').update((current) => ({
      next: { ...current!, unpublished: true },
      result: undefined,
    }));
    expect(names(await search.search('', request))).toEqual(['com.cache.three', 'com.cache.two']);
  });

  it('keeps each page and tenant apart, and gives every response its own time', async () => {
    const { search, index } = service(first, 20_000);
    const firstPage = await search.searchBody('', { ...request, size: 1 });
    const secondPage = await search.searchBody('', { ...request, size: 1, from: 1 });
    const otherTenant = await search.searchBody('acme', request);
    expect(index.reads).toBe(3);
    const [a, b] = [JSON.parse(firstPage.toString()), JSON.parse(secondPage.toString())];
    expect(a.objects).toHaveLength(1);
    expect(b.objects).toHaveLength(1);
    expect(a.objects[0].package.name).not.toBe(b.objects[0].package.name);
    expect(JSON.parse(otherTenant.toString())).toMatchObject({ objects: [], total: 0 });
    const repeated = JSON.parse((await search.searchBody('', { ...request, size: 1 })).toString());
    expect(index.reads).toBe(3);
    expect(repeated.objects).toEqual(a.objects);
    expect(Number.isNaN(Date.parse(repeated.time))).toBe(false);
  });

  it('can be turned off (searchCache 0)', async () => {
    const { search, index } = service(first, 0);
    const a = await search.search('', request);
    const b = await search.search('', request);
    expect(index.reads).toBe(2);
    expect(b.objects).toEqual(a.objects);
  });

  it('keeps nothing for an index that cannot tell when it changes, unless given a max age', async () => {
    const index = countingIndex(first.search);
    // Counted through the same closure: `blind` is the index without resultsVersion.
    const { resultsVersion: _unused, ...blind } = index;
    const search = new SearchService(serverDeps(config(20_000), { ...first, search: blind }));
    await search.search('', request);
    await search.search('', request);
    expect(index.reads).toBe(2);
  });

  describe('with an index that cannot tell (PostgreSQL shared by nodes)', () => {
    function sharedService(maxAgeMs = 1000) {
      const index = countingIndex(first.search);
      const { resultsVersion: _unused, ...blind } = index;
      const bus = new SwitchableBus();
      let now = 0;
      const search = new SearchService(serverDeps(config(20_000), { ...first, search: blind, bus }), {
        sharedMaxAgeMs: maxAgeMs,
        clock: () => now,
      });
      return { search, index, bus, advance: (ms: number) => (now += ms) };
    }

    it('keeps a response for the max age, then answers it once more while one read refreshes it', async () => {
      const { search, index, advance } = sharedService();
      const before = await search.search('', request);
      advance(1000);
      await search.search('', request);
      expect(index.reads).toBe(1);
      advance(1);
      // Written without an announcement on this service's bus: only a read of the index finds it.
      await seedPackage(first, buildStoredPackage('com.cache.late', { description: 'shared late' }));
      // Past its age: the kept response is answered, and one read (not one per search) refreshes it.
      const stale = await Promise.all([search.search('', request), search.search('', request)]);
      expect(stale.map(names)).toEqual([names(before), names(before)]);
      expect(index.reads).toBe(2);
      // Until the refresh lands, every search answers the kept response and joins that one read.
      let latest = stale[0];
      for (let attempt = 0; attempt < 100 && !names(latest).includes('com.cache.late'); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        latest = await search.search('', request);
      }
      expect(names(latest)).toContain('com.cache.late');
      expect(index.reads).toBe(2);
    });

    it('reads before answering a response older than twice the max age', async () => {
      const { search, index, advance } = sharedService();
      await search.search('', request);
      advance(2001);
      await seedPackage(first, buildStoredPackage('com.cache.later', { description: 'shared later' }));
      expect(names(await search.search('', request))).toContain('com.cache.later');
      expect(index.reads).toBe(2);
    });

    it('drops every response when the bus announces a write of any node, or may have missed one', async () => {
      const { search, index, bus } = sharedService();
      await search.search('', request);
      await bus.publish('', 'com.cache.elsewhere');
      await search.search('', request);
      expect(index.reads).toBe(2);
      await search.search('', request);
      expect(index.reads).toBe(2);
      bus.reset();
      await search.search('', request);
      expect(index.reads).toBe(3);
    });

    it('keeps a response past a second: only the bus, or the max age, drops it', async () => {
      const { search, index, advance } = sharedService(60_000);
      await search.search('', request);
      advance(59_000);
      await search.search('', request);
      expect(index.reads).toBe(1);
    });

    it('answers each response once more while one read refreshes it when a node announces new download counts or scores', async () => {
      const { search, index, bus, advance } = sharedService(60_000);
      const monthly = (response: SearchResponse) =>
        response.objects.find((o) => o.package.name === 'com.cache.two')?.downloads.monthly;
      const before = await search.search('', request);
      expect(monthly(before)).toBe(0);
      advance(1);
      // Another node's recorder, on the same database and bus.
      const recorder = new BatchingDownloadRecorder(
        { counts: second.downloadCounts, search: second.search, now: () => new Date(), bus },
        { flushIntervalMs: 3_600_000, scoreIntervalMs: 3_600_000 },
      );
      try {
        recorder.record('', 'com.cache.two', '1.0.0');
        await recorder.flush();
      } finally {
        await recorder.close();
      }
      // Nothing dropped: the kept response is answered, and one read refreshes it.
      const stale = await Promise.all([search.search('', request), search.search('', request)]);
      expect(stale.map(monthly)).toEqual([0, 0]);
      expect(index.reads).toBe(2);
      let latest = stale[0];
      for (let attempt = 0; attempt < 100 && monthly(latest) !== 1; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        latest = await search.search('', request);
      }
      expect(monthly(latest)).toBe(1);
      expect(index.reads).toBe(2);
      // Kept again until the next announcement.
      advance(1);
      await search.search('', request);
      expect(index.reads).toBe(2);

      // The day's refresh announces only what changed something: here a count no recorder scored.
      const today = new Date().toISOString().slice(0, 10);
      await second.downloadCounts.add([{ tenant: '', name: 'com.cache.two', version: '1.0.0', day: today, count: 1 }]);
      const scores = new ScoreRefresher({ search: second.search, registry: second.registry, now: () => new Date(), bus });
      try {
        await scores.refreshIfNewDay();
      } finally {
        await scores.close();
      }
      await search.search('', request);
      expect(index.reads).toBe(3);
    });

    it('refreshes at most two kept responses at once in the background, answering the others as they are meanwhile', async () => {
      // Reads held open until released: the refreshes in flight can be counted.
      let release: () => void = () => undefined;
      let held = new Promise<void>((resolve) => (release = resolve));
      const index = { reads: 0 };
      let inFlight = 0;
      let mostInFlight = 0;
      const gated: SearchIndex = {
        search: async (...args: Parameters<SearchIndex['search']>) => {
          index.reads++;
          inFlight++;
          mostInFlight = Math.max(mostInFlight, inFlight);
          try {
            await held;
            return await first.search.search(...args);
          } finally {
            inFlight--;
          }
        },
        listSummaries: first.search.listSummaries.bind(first.search),
        ranked: first.search.ranked.bind(first.search),
        refreshScores: first.search.refreshScores.bind(first.search),
        scoresRefreshedOn: first.search.scoresRefreshedOn.bind(first.search),
      };
      const bus = new SwitchableBus();
      let now = 0;
      const search = new SearchService(serverDeps(config(20_000), { ...first, search: gated, bus }), {
        sharedMaxAgeMs: 60_000,
        clock: () => now,
      });
      const pages = [0, 1, 2, 3, 4].map((from) => ({ ...request, size: 1, from }));
      release();
      for (const page of pages) await search.search('', page);
      expect(index.reads).toBe(5);
      held = new Promise<void>((resolve) => (release = resolve));
      mostInFlight = 0;
      now += 1;
      await bus.publish('', SEARCH_RESULTS_CHANGED);
      // Every response is stale: each is answered at once, and two refreshes start.
      const answered = await Promise.all(pages.map((page) => search.search('', page)));
      expect(answered.every((response) => response.objects.length <= 1)).toBe(true);
      expect(index.reads).toBe(7);
      expect(inFlight).toBe(2);
      release();
      // The others are refreshed by later searches, never more than two at a time.
      for (let attempt = 0; attempt < 100 && index.reads < 10; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        await Promise.all(pages.map((page) => search.search('', page)));
      }
      expect(index.reads).toBe(10);
      expect(mostInFlight).toBe(2);
      // All five refreshed: kept again until the next announcement.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await Promise.all(pages.map((page) => search.search('', page)));
      expect(index.reads).toBe(10);
    });

    it('reads every time while the bus is deaf to the other nodes', async () => {
      const { search, index, bus } = sharedService();
      await search.search('', request);
      bus.connected = false;
      await search.search('', request);
      await search.search('', request);
      expect(index.reads).toBe(3);
      bus.connected = true;
      await search.search('', request);
      await search.search('', request);
      expect(index.reads).toBe(4);
    });
  });

  it('does not keep a page read while the results changed', async () => {
    const { index } = service(first, 20_000);
    let version = 0;
    const racing: SearchIndex = {
      ...index,
      search: async (...args) => {
        const page = await index.search(...args);
        version++; // another process committed while this page was read
        return page;
      },
      resultsVersion: () => version,
    };
    const search = new SearchService(serverDeps(config(20_000), { ...first, search: racing }));
    await search.search('', request);
    await search.search('', request);
    expect(index.reads).toBe(2);
  });
});
