import { existsSync } from 'node:fs';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  freshPostgresSchema,
  freshRedisPrefix,
  startS3Server,
  testPostgresUrl,
  testRedisUrl,
  type TestS3,
} from '@pkg/testkit';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { collectOrphanBlobs, createMemoryStorage, createStorage, type Storage } from '../../src/storage/create-storage.js';
import { blobKeyFor } from '../../src/storage/blob-keys.js';
import { FsBlobStore, TEMP_DIR } from '../../src/storage/drivers/fs/fs-blob-store.js';
import { POSTGRES_CHANGE_LOG_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-change-log.js';
import { POSTGRES_MIGRATIONS } from '../../src/storage/drivers/postgres/migrations.js';
import { POSTGRES_ADVISORY_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-advisories.js';
import { POSTGRES_DOWNLOAD_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-download-counts.js';
import { PostgresInvalidationBus } from '../../src/storage/drivers/postgres/postgres-invalidation-bus.js';
import { POSTGRES_PACKAGE_CHANGES_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-package-changes.js';
import { ChangeFeedBus } from '../../src/storage/change-feed-bus.js';
import { POSTGRES_SEARCH_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-search-index.js';
import { POSTGRES_SIGNING_KEY_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-signing-keys.js';
import { POSTGRES_TEAM_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-teams.js';
import { PostgresMetadataStore } from '../../src/storage/drivers/postgres/postgres-metadata-store.js';
import { POSTGRES_UPLINK_CACHE_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-uplink-cache.js';
import { POSTGRES_RENDER_STORE_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-render-store.js';
import { POSTGRES_STORAGE_USAGE_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-storage-usage.js';
import { POSTGRES_UPSTREAM_ANSWER_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-upstream-answers.js';
import { RedisInvalidationBus } from '../../src/storage/drivers/redis/redis-invalidation-bus.js';
import { S3BlobStore } from '../../src/storage/drivers/s3/s3-blob-store.js';
import { SqliteMetadataStore } from '../../src/storage/drivers/sqlite/sqlite-metadata-store.js';
import { LocalInvalidationBus } from '../../src/storage/drivers/memory/memory-invalidation-bus.js';
import { stored, tenant } from '../contract/metadata-fixtures.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-create-storage-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function config(settings: Record<string, string>) {
  return loadConfig({ flags: { data: dataDir, ...settings }, env: {} });
}

describe('createStorage picks drivers from the configuration', () => {
  it('embedded default: SQLite, files, a one-process bus', async () => {
    const storage = await createStorage(config({}));
    try {
      expect(storage.database).toBeInstanceOf(SqliteMetadataStore);
      expect(storage.blobs).toBeInstanceOf(FsBlobStore);
      expect(storage.bus).toBeInstanceOf(LocalInvalidationBus);
      expect(storage.shared).toBe(false);
      expect(storage.redis).toBeUndefined();
    } finally {
      await storage.close();
    }
  });

  it("sizes SQLite's page cache from databaseCache (2 MiB by default, not better-sqlite3's 16 MB)", async () => {
    for (const [settings, kib] of [
      [{}, 2048],
      [{ databaseCache: String(512 * 1024) }, 512],
    ] as const) {
      const storage = await createStorage(config(settings));
      try {
        const db = (storage.database as SqliteMetadataStore).db;
        expect(db.pragma('cache_size', { simple: true })).toBe(-kib);
      } finally {
        await storage.close();
      }
    }
  });

  it.each([
    ['database', 'mysql://localhost/db'],
    ['database', 'postgres://127.0.0.1/test?schema=Bad-Name'],
    ['database', 'postgres://127.0.0.1/test?pool=1'],
    ['storage', 's3://Bad_Bucket'],
    ['storage', 'gs://bucket'],
    ['redis', 'http://127.0.0.1:6379'],
  ])('refuses %s=%s with a configuration error, opening nothing', async (key, value) => {
    const attempt = async () => createStorage(config({ [key]: value }));
    await expect(attempt()).rejects.toThrow(ConfigError);
  });
});

describe.skipIf(!testPostgresUrl || !testRedisUrl)('createStorage with PostgreSQL, S3 and Redis', () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3.close();
  });

  it('scale-out: PostgreSQL, S3, invalidation over Redis', async () => {
    const postgres = freshPostgresSchema();
    const redis = freshRedisPrefix();
    const storage = await createStorage(config({ database: postgres.url, storage: s3.url, redis: redis.url }));
    try {
      expect(storage.database).toBeInstanceOf(PostgresMetadataStore);
      expect(storage.blobs).toBeInstanceOf(S3BlobStore);
      // The channel tells at once, the database's log of writes what the channel lost.
      expect(storage.bus).toBeInstanceOf(ChangeFeedBus);
      expect((storage.bus as ChangeFeedBus).channel).toBeInstanceOf(RedisInvalidationBus);
      expect(storage.bus.heardUntil).toBeTypeOf('number');
      expect(storage.bus.connected).toBe(true);
      expect(storage.shared).toBe(true);
      // Migrated at start: usable at once.
      expect(await storage.registry.tenants.list()).toEqual([]);
    } finally {
      await storage.close();
      await postgres.drop();
      await redis.drop();
    }
  });

  it('several nodes starting at once on an empty database all migrate it, once', async () => {
    const postgres = freshPostgresSchema();
    const starting = Array.from({ length: 3 }, () =>
      createStorage(config({ database: postgres.url, storage: path.join(dataDir, 'shared') })),
    );
    const nodes = await Promise.all(starting);
    try {
      const versions = await (nodes[0]!.database as PostgresMetadataStore).pool.query<{ scope: string; n: string }>(
        'SELECT scope, count(*) AS n FROM schema_migrations GROUP BY scope ORDER BY scope',
      );
      expect(versions.rows).toEqual([
        { scope: 'advisories', n: String(POSTGRES_ADVISORY_MIGRATIONS.length) },
        { scope: 'change-log', n: String(POSTGRES_CHANGE_LOG_MIGRATIONS.length) },
        { scope: 'core', n: String(POSTGRES_MIGRATIONS.length) },
        { scope: 'downloads', n: String(POSTGRES_DOWNLOAD_MIGRATIONS.length) },
        { scope: 'package-changes', n: String(POSTGRES_PACKAGE_CHANGES_MIGRATIONS.length) },
        { scope: 'renders', n: String(POSTGRES_RENDER_STORE_MIGRATIONS.length) },
        { scope: 'search', n: String(POSTGRES_SEARCH_MIGRATIONS.length) },
        { scope: 'signing-keys', n: String(POSTGRES_SIGNING_KEY_MIGRATIONS.length) },
        { scope: 'storage-usage', n: String(POSTGRES_STORAGE_USAGE_MIGRATIONS.length) },
        { scope: 'teams', n: String(POSTGRES_TEAM_MIGRATIONS.length) },
        { scope: 'uplink-cache', n: String(POSTGRES_UPLINK_CACHE_MIGRATIONS.length) },
        { scope: 'upstream-answers', n: String(POSTGRES_UPSTREAM_ANSWER_MIGRATIONS.length) },
      ]);
      await nodes[1]!.packages.package('', 'com.acme.tool').update(() => ({
        next: stored('com.acme.tool', ['1.0.0']),
        result: null,
      }));
      const page = await nodes[2]!.search.search(
        '',
        { terms: ['tool'], keywords: { include: [], exclude: [] }, authors: [], maintainers: [] },
        { size: 10, from: 0 },
      );
      expect(page.hits.map((hit) => hit.name)).toEqual(['com.acme.tool']);
    } finally {
      for (const node of nodes) await node.close();
      await postgres.drop();
    }
  });

  it('without Redis, invalidations go over PostgreSQL LISTEN/NOTIFY', async () => {
    const postgres = freshPostgresSchema();
    const storage = await createStorage(config({ database: postgres.url, storage: path.join(dataDir, 'shared') }));
    try {
      expect(storage.bus).toBeInstanceOf(ChangeFeedBus);
      expect((storage.bus as ChangeFeedBus).channel).toBeInstanceOf(PostgresInvalidationBus);
      expect(storage.bus.connected).toBe(true);
      expect(storage.blobs).toBeInstanceOf(FsBlobStore);
    } finally {
      await storage.close();
      await postgres.drop();
    }
  });

  it('starts without Redis when it is unreachable, saying so once', async () => {
    const postgres = freshPostgresSchema();
    const warnings: string[] = [];
    const log = { info() {}, warn: (_details: object, message: string) => warnings.push(message) };
    const deadPort = await freePort();
    const storage = await createStorage(
      config({ database: postgres.url, storage: s3.url, redis: `redis://127.0.0.1:${deadPort}` }),
      { log, redisWaitMs: 300 },
    );
    try {
      expect(storage.bus.connected).toBe(false);
      await expect(storage.bus.publish('', 'com.acme.tool')).resolves.toBeUndefined();
      await storage.packages.package('', 'com.acme.tool').update(() => ({
        next: stored('com.acme.tool', ['1.0.0']),
        result: null,
      }));
      expect(await storage.packages.listPackageNames('')).toEqual(['com.acme.tool']);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/Redis is unreachable/);
    } finally {
      await storage.close();
      await postgres.drop();
    }
  });
});

describe('collectOrphanBlobs', () => {
  it('removes unreferenced tarballs older than the grace period, keeps referenced and young ones', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-orphans-'));
    const storage = await createStorage(loadConfig({ flags: { data: dir }, env: {} }));
    try {
      await storage.packages.package('', 'com.acme.tool').update(() => ({
        next: stored('com.acme.tool', ['1.0.0']),
        result: null,
      }));
      const referenced = blobKeyFor('', 'com.acme.tool', '1.0.0');
      const old = blobKeyFor('', 'com.acme.tool', '0.9.0');
      const young = blobKeyFor('', 'com.acme.tool', '1.1.0');
      for (const key of [referenced, old, young]) await storage.blobs.put(key, Buffer.from(key));
      const now = new Date('2030-01-01T12:00:00Z');
      const fs = storage.blobs as FsBlobStore;
      await utimes(fs.filePath(old), new Date('2030-01-01T10:00:00Z'), new Date('2030-01-01T10:00:00Z'));
      await utimes(fs.filePath(referenced), new Date('2030-01-01T10:00:00Z'), new Date('2030-01-01T10:00:00Z'));
      await utimes(fs.filePath(young), new Date('2030-01-01T11:30:00Z'), new Date('2030-01-01T11:30:00Z'));
      // Temporary files of interrupted uploads, old and young.
      const oldTemp = path.join(fs.root, TEMP_DIR, 'crashed.tmp');
      const youngTemp = path.join(fs.root, TEMP_DIR, 'in-flight.tmp');
      await writeFile(oldTemp, 'half a tarball');
      await writeFile(youngTemp, 'a tarball arriving');
      await utimes(oldTemp, new Date('2030-01-01T10:00:00Z'), new Date('2030-01-01T10:00:00Z'));
      await utimes(youngTemp, new Date('2030-01-01T11:30:00Z'), new Date('2030-01-01T11:30:00Z'));
      expect(await collectOrphanBlobs(storage, 60 * 60 * 1000, now)).toEqual({
        orphans: 1,
        temporaryFiles: 1,
        incompleteUploads: 0,
      });
      expect(existsSync(oldTemp)).toBe(false);
      expect(existsSync(youngTemp)).toBe(true);
      expect(await storage.blobs.stat(old)).toBeUndefined();
      expect(await storage.blobs.stat(referenced)).toBeDefined();
      expect(await storage.blobs.stat(young)).toBeDefined();
    } finally {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  // More packages than one query of the sweep asks about, in two registries, with blobs of no
  // package: the directory walk (listKeys) on disk, the listing with times (list) in memory.
  const stores: [string, () => Promise<{ storage: Storage; dispose(): Promise<void> }>][] = [
    [
      'embedded',
      async () => {
        const dir = await mkdtemp(path.join(tmpdir(), 'pkg-orphans-'));
        const storage = await createStorage(loadConfig({ flags: { data: dir }, env: {} }));
        return { storage, dispose: () => storage.close().then(() => rm(dir, { recursive: true, force: true })) };
      },
    ],
    ['memory', async () => ({ storage: createMemoryStorage(), dispose: () => Promise.resolve() })],
  ];
  describe.each(stores)('on %s storage', (_driver, open) => {
    it('across many packages and registries, removes every orphan and no referenced blob', async () => {
      const { storage, dispose } = await open();
      try {
        await storage.registry.tenants.create(tenant('acme'));
        const referenced: string[] = [];
        const orphans: string[] = [];
        for (const registry of ['', 'acme']) {
          for (let i = 0; i < 300; i++) {
            const name = `com.acme.pkg${i}`;
            await storage.packages.package(registry, name).update(() => ({ next: stored(name, ['1.0.0']), result: null }));
            referenced.push(blobKeyFor(registry, name, '1.0.0'));
            // Every third package has an orphan beside its tarball; packages 0 to 9 have no row at all.
            if (i % 3 === 0) orphans.push(blobKeyFor(registry, name, '0.1.0'));
            if (i < 10) orphans.push(blobKeyFor(registry, `com.acme.gone${i}`, '1.0.0'));
          }
        }
        orphans.push('_global/loose.tgz');
        for (const key of [...referenced, ...orphans]) await storage.blobs.put(key, Buffer.from(key));
        const later = new Date(Date.now() + 60_000);
        expect(await collectOrphanBlobs(storage, 0, later)).toEqual({
          orphans: orphans.length,
          temporaryFiles: 0,
          incompleteUploads: 0,
        });
        const left: string[] = [];
        for await (const blob of storage.blobs.list()) left.push(blob.key);
        expect(left.sort()).toEqual([...referenced].sort());
      } finally {
        await dispose();
      }
    });

    it('stops at the abort signal, removing nothing more', async () => {
      const { storage, dispose } = await open();
      try {
        for (let i = 0; i < 10; i++) await storage.blobs.put(blobKeyFor('', `com.acme.gone${i}`, '1.0.0'), Buffer.from('x'));
        const sweep = new AbortController();
        sweep.abort();
        expect(await collectOrphanBlobs(storage, 0, new Date(Date.now() + 60_000), sweep.signal)).toMatchObject({ orphans: 0 });
        let left = 0;
        for await (const _blob of storage.blobs.list()) left++;
        expect(left).toBe(10);
      } finally {
        await dispose();
      }
    });
  });
});
