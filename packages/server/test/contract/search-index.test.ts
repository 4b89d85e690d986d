/**
 * The search index of a metadata driver against the reference rules (search/relevance.ts):
 * random corpora and queries, the driver's matches, tiers, order and totals must equal the
 * reference's. Every driver runs it: SQLite, and PostgreSQL when scripts/test.js found one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage, createStorage, loadConfig, type Storage } from '@pkg/server';
import { buildStoredPackage, freshPostgresSchema, seedPackage, testPostgresUrl } from '@pkg/testkit';
import { deriveSearchFields, maintainerKeys } from '../../src/search/search-fields.js';
import { parseSearchText, type SearchQuery } from '../../src/search/search-query.js';
import { rankPackages, relevanceTier, type RankedPackage } from '../../src/search/relevance.js';
import { scorePackage } from '../../src/search/scoring.js';

const NOW = new Date('2025-06-01T12:00:00Z');

/**
 * Each metadata driver with a search index: its storage, opened in a fresh data directory; where
 * the database shows it, a stamp of a package's search row that any write of the row changes.
 */
const DRIVERS: {
  name: string;
  open: (dataDir: string) => Promise<Storage>;
  drop?: () => Promise<void>;
  rowStamp?: (tenant: string, name: string) => Promise<string>;
}[] = [
  { name: 'SQLite', open: (dataDir) => openStorage(dataDir, `sqlite:${path.join(dataDir, 'registry.db')}`) },
  { name: 'memory', open: async () => createMemoryStorage({ now: () => NOW }) },
  ...(testPostgresUrl ? [postgresDriver()] : []),
];

function openStorage(dataDir: string, database: string): Promise<Storage> {
  const config = loadConfig({ flags: { data: dataDir, database, logLevel: 'silent' }, env: {} });
  return createStorage(config, { now: () => NOW });
}

/** PostgreSQL on a fresh schema (when scripts/test.js found a server); a row's stamp is its `xmin`. */
function postgresDriver() {
  const schema = freshPostgresSchema();
  return {
    name: 'PostgreSQL',
    open: (dataDir: string) => openStorage(dataDir, schema.url),
    drop: () => schema.drop(),
    async rowStamp(tenant: string, name: string) {
      const client = new pg.Client({ connectionString: testPostgresUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ xmin: string }>(
          `SELECT xmin::text FROM "${schema.schema}".search_packages WHERE tenant = $1 AND name = $2`,
          [tenant, name],
        );
        return rows[0]!.xmin;
      } finally {
        await client.end();
      }
    },
  };
}

// A small alphabet, so that names, keywords and texts collide often.
const WORDS = ['a', 'ab', 'abc', 'bca', 'in', 'inp', 'input', 'put', 'ui', 'sys', 'system', 'x1', 'tem'];
const SEGMENTS = ['ab', 'abc', 'in', 'input', 'sys', 'ui', 'a1', 'b-c', 'x_y', 'input-sys', 'put'];
const word = fc.constantFrom(...WORDS);
const text = fc.array(word, { maxLength: 5 }).map((w) => w.join(' '));

const packageArb = fc.record({
  name: fc.tuple(fc.constantFrom(...SEGMENTS), fc.constantFrom(...SEGMENTS)).map(([a, b]) => `com.${a}.${b}`),
  description: text,
  displayName: fc.option(
    fc.array(word, { minLength: 1, maxLength: 2 }).map((w) => w.join(' ').toUpperCase()),
    {
      nil: undefined,
    },
  ),
  keywords: fc.uniqueArray(word, { maxLength: 3 }),
  author: fc.option(
    fc.tuple(word, word).map(([n, m]) => `${n} <${m}@mail.ex>`),
    { nil: undefined },
  ),
  maintainers: fc.uniqueArray(fc.constantFrom('al', 'bob', 'carol'), { minLength: 1, maxLength: 2 }),
  deprecated: fc.boolean(),
  unstable: fc.boolean(),
  readme: fc.constantFrom('', 'short', 'long '.repeat(50)),
  repository: fc.option(fc.constant('https://git.example/r'), { nil: undefined }),
  ageDays: fc.integer({ min: 0, max: 800 }),
  // A version naming no engine is a Unity package.
  engines: fc.subarray(['unity', 'godot', 'unreal'] as const),
});

const ENGINE_FIELDS = { unity: { unity: '2021.3' }, godot: { godot: '4.2' }, unreal: { unreal: '5.3', unrealMax: '5.4' } };

/** Absent four times in five: with every qualifier often present, nearly no query would match. */
const rare = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });
const queryText = fc
  .record({
    terms: fc.array(fc.oneof(word, fc.constantFrom('com.ab', 'input-sys', 'a1', 'x_y', 'INPUT')), { maxLength: 2 }),
    keywords: rare(
      fc.array(
        fc.oneof(
          word,
          word.map((w) => `-${w}`),
        ),
        { minLength: 1, maxLength: 2 },
      ),
    ),
    author: rare(word),
    maintainer: rare(fc.constantFrom('al', 'bob', 'carol@example.com', 'zed')),
    flag: rare(fc.constantFrom('is:deprecated', 'not:deprecated', 'is:unstable', 'not:unstable')),
    engine: rare(fc.constantFrom('engine:unity', 'engine:godot', 'engine:unreal', 'engine:godot engine:unreal')),
  })
  .map((q) =>
    [
      ...q.terms,
      ...(q.keywords ? [`keywords:${q.keywords.join(',')}`] : []),
      ...(q.author ? [`author:${q.author}`] : []),
      ...(q.maintainer ? [`maintainer:${q.maintainer}`] : []),
      ...(q.flag ? [q.flag] : []),
      ...(q.engine ? [q.engine] : []),
    ].join(' '),
  );

type PackageSpec = typeof packageArb extends fc.Arbitrary<infer T> ? T : never;

function build(spec: PackageSpec) {
  return buildStoredPackage(spec.name, {
    description: spec.description,
    ...(spec.displayName !== undefined ? { displayName: spec.displayName } : {}),
    keywords: spec.keywords,
    ...(spec.author !== undefined ? { author: spec.author } : {}),
    maintainers: spec.maintainers,
    ...(spec.deprecated ? { deprecated: 'do not use' } : {}),
    versions: [
      {
        version: spec.unstable ? '0.3.0' : '1.2.0',
        manifest: Object.assign({}, ...spec.engines.map((e) => ENGINE_FIELDS[e])) as Record<string, string>,
      },
    ],
    readme: spec.readme,
    ...(spec.repository !== undefined ? { repository: spec.repository } : {}),
    lastPublish: new Date(NOW.getTime() - spec.ageDays * 86_400_000),
  });
}

function reference(pkg: ReturnType<typeof build>): RankedPackage {
  const fields = deriveSearchFields(pkg)!;
  const deprecated = fields.deprecated !== undefined;
  const { final } = scorePackage(
    { quality: fields.quality, releaseTimes: fields.releaseTimes, deprecated, monthlyDownloads: 0, maxMonthlyDownloads: 0 },
    NOW,
  );
  return {
    name: fields.name,
    texts: fields.texts,
    keywords: fields.keywords.map((k) => k.toLowerCase()),
    maintainers: maintainerKeys(fields),
    deprecated,
    unstable: fields.unstable,
    final,
    engines: fields.engines.map((e) => e.engine),
  };
}

function tryParse(text: string): SearchQuery | undefined {
  try {
    return parseSearchText(text);
  } catch {
    return undefined;
  }
}

describe.each(DRIVERS)('search index contract ($name)', ({ open, drop, rowStamp }) => {
  let storage: Storage;
  let dataDir: string;
  let run = 0;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-registry-search-contract-'));
    storage = await open(dataDir);
  });
  afterAll(async () => {
    await storage.close();
    await drop?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('matches, ranks, counts and pages exactly as the reference rules', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(packageArb, { minLength: 1, maxLength: 25, selector: (p) => p.name }),
        fc.array(queryText, { minLength: 1, maxLength: 6 }),
        async (specs, texts) => {
          const tenant = `contract${run++}`;
          const packages = specs.map(build);
          for (const pkg of packages) await seedPackage(storage, pkg, tenant);
          const ranked = packages.map(reference);
          for (const text of texts) {
            const query = tryParse(text);
            if (!query) continue;
            const expected = rankPackages(ranked, query);
            const page = await storage.search.search(tenant, query, { size: 250, from: 0 });
            expect(
              page.hits.map((h) => h.name),
              text,
            ).toEqual(expected.map((p) => p.name));
            expect(page.total, text).toBe(expected.length);
            for (const hit of page.hits) {
              expect(hit.tier, `${text}: ${hit.name}`).toBe(
                relevanceTier(
                  ranked.find((p) => p.name === hit.name)!,
                  query.terms,
                ),
              );
            }
            const middle = await storage.search.search(tenant, query, { size: 3, from: 2 });
            expect(
              middle.hits.map((h) => h.name),
              text,
            ).toEqual(expected.slice(2, 5).map((p) => p.name));
            expect(middle.total, text).toBe(expected.length);
          }
        },
      ),
      // Each run seeds up to 25 packages into a real database; `npm run test:full` goes deeper.
      { numRuns: Number(process.env.PKG_TEST_SEARCH_RUNS ?? 60) },
    );
  }, 180_000);

  it('writes only the windows and scores a refresh changes, and says whether there were any', async () => {
    const tenant = 'refreshes';
    const [counted, idle] = ['com.refresh.counted', 'com.refresh.idle'];
    for (const name of [counted, idle])
      await seedPackage(storage, buildStoredPackage(name, { description: 'refreshed' }), tenant);
    const today = NOW.toISOString().slice(0, 10);
    await storage.downloadCounts.add([{ tenant, name: counted, version: '1.0.0', day: today, count: 3 }]);
    const page = async () => (await storage.search.ranked(tenant, 'downloads', { size: 10, from: 0 })).hits;

    // The counted package's windows change, and so do the results.
    expect(await storage.search.refreshScores(tenant, [counted], NOW)).toBe(true);
    expect((await page()).map((hit) => [hit.name, hit.downloads])).toEqual([[counted, { weekly: 3, monthly: 3 }]]);
    // Every package once, then nothing is left to change: neither a named nor a whole refresh
    // writes a row again, and kept search responses stay (resultsVersion).
    await storage.search.refreshScores(tenant, null, NOW);
    const version = storage.search.resultsVersion?.();
    const stamps = rowStamp && (await Promise.all([counted, idle].map((name) => rowStamp(tenant, name))));
    expect(await storage.search.refreshScores(tenant, [counted, idle], NOW)).toBe(false);
    expect(await storage.search.refreshScores(tenant, null, NOW)).toBe(false);
    expect(storage.search.resultsVersion?.()).toBe(version);
    if (rowStamp) expect(await Promise.all([counted, idle].map((name) => rowStamp(tenant, name)))).toEqual(stamps);

    // Counts leaving the month: the whole refresh zeroes the windows, and says so.
    const later = new Date(NOW.getTime() + 40 * 86_400_000);
    expect(await storage.search.refreshScores(tenant, null, later)).toBe(true);
    expect(await page()).toEqual([]);
    expect(await storage.search.refreshScores(tenant, null, later)).toBe(false);
  });

  it('indexes packages written together as it indexes each one updated', async () => {
    const specs = fc.sample(fc.uniqueArray(packageArb, { minLength: 30, maxLength: 30, selector: (p) => p.name }), {
      numRuns: 1,
      seed: 29,
    })[0]!;
    const packages = specs.map(build);
    const [one, together] = ['written-one-by-one', 'written-together'];
    // A package indexed before and unpublished in the batch leaves the index, as its update would.
    const gone = buildStoredPackage('com.gone.tool', { description: 'input system' });
    for (const tenant of [one, together]) await seedPackage(storage, gone, tenant);
    for (const pkg of packages) await seedPackage(storage, pkg, one);
    await seedPackage(storage, { ...gone, unpublished: true }, one);
    await storage.packages.writePackages(together, [
      ...packages.map((pkg) => ({ name: pkg.document.name, next: pkg })),
      { name: gone.document.name, next: { ...gone, unpublished: true } },
    ]);
    const queries = ['input', 'sys', 'a', 'keywords:ui', 'ab in', 'not:deprecated put'];
    for (const text of queries) {
      const query = parseSearchText(text);
      const [expected, actual] = await Promise.all(
        [one, together].map((tenant) => storage.search.search(tenant, query, { size: 250, from: 0 })),
      );
      expect(actual, text).toEqual(expected);
    }
    const expected = await storage.search.ranked(one, 'updated', { size: 250, from: 0 });
    const actual = await storage.search.ranked(together, 'updated', { size: 250, from: 0 });
    expect(actual.hits.map((hit) => hit.name)).toContain(packages[0]!.document.name);
    expect(actual.hits.map((hit) => hit.name)).not.toContain(gone.document.name);
    expect(actual).toEqual(expected);
  });

  it('keeps tenants apart', async () => {
    const pkg = buildStoredPackage('com.tenant.only', { description: 'isolated input' });
    await seedPackage(storage, pkg, 'tenant-a');
    const query = parseSearchText('isolated');
    expect((await storage.search.search('tenant-a', query, { size: 20, from: 0 })).total).toBe(1);
    expect((await storage.search.search('tenant-b', query, { size: 20, from: 0 })).total).toBe(0);
    expect((await storage.search.search('', query, { size: 20, from: 0 })).total).toBe(0);
  });
});
