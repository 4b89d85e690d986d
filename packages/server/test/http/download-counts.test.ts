import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStoredPackage, request, seedPackage, startRegistry, type TestRegistry } from '@pkg/testkit';

const DAY_MS = 86_400_000;
let clock = new Date('2025-03-10T15:00:00Z');
let registry: TestRegistry;

beforeAll(async () => {
  registry = await startRegistry({ now: () => clock });
  for (const name of ['com.count.popular', 'com.count.rare', 'com.count.never']) {
    await seedPackage(
      registry.storage,
      buildStoredPackage(name, { description: 'counted package', versions: ['1.0.0', '1.1.0'], lastPublish: clock }),
    );
  }
});
afterAll(async () => {
  await registry.close();
});

function download(name: string, version: string, times = 1) {
  for (let i = 0; i < times; i++) registry.services.downloads.record('', name, version);
}

async function get(path: string) {
  return request(`${registry.url}${path}`);
}

describe('download counting', () => {
  it('counts downloads per package, version and UTC day, written in batches', async () => {
    download('com.count.popular', '1.0.0', 300);
    download('com.count.popular', '1.1.0', 700);
    download('com.count.rare', '1.1.0', 3);
    await registry.services.downloads.flush();
    const counts = await registry.storage.downloadCounts.perDay('', 'com.count.popular', '2025-03-10', '2025-03-10');
    expect(counts).toEqual([{ day: '2025-03-10', downloads: 1000 }]);

    const point = await get('/downloads/point/last-day/com.count.popular');
    expect(point.status).toBe(200);
    expect(point.headers.get('content-type')).toMatch(/^application\/json/);
    expect(point.body).toEqual({ downloads: 1000, start: '2025-03-10', end: '2025-03-10', package: 'com.count.popular' });
  });

  it('shows the counts in search results, and popularity follows them', async () => {
    const res = await get('/-/v1/search?text=counted&size=10');
    const byName = Object.fromEntries(res.body.objects.map((o: { package: { name: string } }) => [o.package.name, o])) as Record<
      string,
      { downloads: { weekly: number; monthly: number }; score: { detail: { popularity: number } } }
    >;
    expect(byName['com.count.popular']!.downloads).toEqual({ weekly: 1000, monthly: 1000 });
    expect(byName['com.count.rare']!.downloads).toEqual({ weekly: 3, monthly: 3 });
    expect(byName['com.count.never']!.downloads).toEqual({ weekly: 0, monthly: 0 });
    expect(byName['com.count.popular']!.score.detail.popularity).toBe(1);
    const rare = byName['com.count.rare']!.score.detail.popularity;
    expect(rare).toBeGreaterThan(0);
    expect(rare).toBeLessThan(1);
    expect(byName['com.count.never']!.score.detail.popularity).toBe(0);
    // Equal otherwise, so the most downloaded ranks first.
    expect(res.body.objects.map((o: { package: { name: string } }) => o.package.name)).toEqual([
      'com.count.popular',
      'com.count.rare',
      'com.count.never',
    ]);
  });

  it('answers npm-shaped points and ranges, with every day of a range', async () => {
    clock = new Date(clock.getTime() + 2 * DAY_MS); // 2025-03-12
    download('com.count.rare', '1.0.0', 2);
    await registry.services.downloads.flush();

    expect((await get('/downloads/point/last-week/com.count.rare')).body).toEqual({
      downloads: 5,
      start: '2025-03-06',
      end: '2025-03-12',
      package: 'com.count.rare',
    });
    expect((await get('/downloads/point/2025-03-10/com.count.rare')).body).toMatchObject({ downloads: 3 });
    expect((await get('/downloads/point/2025-03-11:2025-03-12/com.count.rare')).body).toMatchObject({ downloads: 2 });
    expect((await get('/downloads/point/last-month/com.count.never')).body).toEqual({
      downloads: 0,
      start: '2025-02-11',
      end: '2025-03-12',
      package: 'com.count.never',
    });

    const range = await get('/downloads/range/2025-03-09:2025-03-12/com.count.rare');
    expect(range.status).toBe(200);
    expect(range.body).toEqual({
      downloads: [
        { day: '2025-03-09', downloads: 0 },
        { day: '2025-03-10', downloads: 3 },
        { day: '2025-03-11', downloads: 0 },
        { day: '2025-03-12', downloads: 2 },
      ],
      start: '2025-03-09',
      end: '2025-03-12',
      package: 'com.count.rare',
    });
    expect((await get('/downloads/range/last-week/com.count.rare')).body.downloads).toHaveLength(7);
    expect((await get('/downloads/range/last-year/com.count.rare')).body.downloads).toHaveLength(365);
  });

  it('moves the weekly and monthly windows with the date', async () => {
    clock = new Date(Date.parse('2025-03-10T12:00:00Z') + 9 * DAY_MS); // 2025-03-19
    await registry.storage.search.refreshScores('', null, clock);
    const res = await get('/-/v1/search?text=com.count.popular');
    expect(res.body.objects[0].downloads).toEqual({ weekly: 0, monthly: 1000 });
    expect((await get('/downloads/point/last-week/com.count.popular')).body.downloads).toBe(0);
    expect((await get('/downloads/point/last-month/com.count.popular')).body.downloads).toBe(1000);

    // Every count out of the month: the windows go back to 0.
    clock = new Date(Date.parse('2025-03-10T12:00:00Z') + 40 * DAY_MS);
    await registry.storage.search.refreshScores('', null, clock);
    // Another page size: not the response a PostgreSQL node kept for the search above (the
    // refresh called here directly announces nothing on the bus).
    const later = await get('/-/v1/search?text=com.count.popular&size=5');
    expect(later.body.objects[0].downloads).toEqual({ weekly: 0, monthly: 0 });
  });

  it('writes what is buffered when the server shuts down', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-registry-restart-'));
    const other = await startRegistry({ dataDir, now: () => clock });
    try {
      await seedPackage(other.storage, buildStoredPackage('com.count.late'));
      other.services.downloads.record('', 'com.count.late', '1.0.0');
    } finally {
      await other.close();
    }
    const again = await startRegistry({ dataDir, now: () => clock });
    try {
      expect((await request(`${again.url}/downloads/point/last-day/com.count.late`)).body.downloads).toBe(1);
    } finally {
      await again.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('score refresh', () => {
  it('refreshes every score once at start-up and records the day', async () => {
    const fresh = await startRegistry({ now: () => new Date('2025-04-01T08:00:00Z') });
    try {
      for (let i = 0; i < 100 && (await fresh.storage.search.scoresRefreshedOn('')) === null; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await fresh.storage.search.scoresRefreshedOn('')).toBe('2025-04-01');
    } finally {
      await fresh.close();
    }
  });
});

describe('download counts API errors', () => {
  it('answers 404 for a package that does not exist or was unpublished', async () => {
    const res = await get('/downloads/point/last-week/com.count.missing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', error: "Package 'com.count.missing' not found" });
    await seedPackage(registry.storage, buildStoredPackage('com.count.gone', { unpublished: true }));
    expect((await get('/downloads/range/last-week/com.count.gone')).status).toBe(404);
  });

  it('answers 422 for a name that is not reverse-DNS', async () => {
    const res = await get('/downloads/point/last-week/express');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it.each([
    'yesterday',
    'last-decade',
    '2025-02-30',
    '2025-3-1',
    '2025-03-12:2025-03-01',
    '2020-01-01:2025-01-01',
    '2025-03-01:2025-03-02:2025-03-03',
    '2025-03-01:',
    '',
  ])('answers 400 for the period %j', async (period) => {
    for (const kind of ['point', 'range']) {
      const res = await get(`/downloads/${kind}/${encodeURIComponent(period)}/com.count.rare`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST' });
      expect(res.body.error).toBe(res.body.details);
    }
  });
});
