import { ConfigError, type Config } from '../config/config.js';
import { silentLog, type StorageLog } from './storage-log.js';
import { FsBlobStore } from './drivers/fs/fs-blob-store.js';
import type { PostgresInvalidationBus } from './drivers/postgres/postgres-invalidation-bus.js';
import type { PostgresMetadataStore } from './drivers/postgres/postgres-metadata-store.js';
import type { RedisConnection } from './drivers/redis/redis-connection.js';
import { SqliteDownloadCounts } from './drivers/sqlite/sqlite-download-counts.js';
import { SqliteMetadataStore } from './drivers/sqlite/sqlite-metadata-store.js';
import { SqliteSearchIndex } from './drivers/sqlite/sqlite-search-index.js';
import { SqliteUplinkCache } from './drivers/sqlite/sqlite-uplink-cache.js';
import { SqliteRenderStore } from './drivers/sqlite/sqlite-render-store.js';
import { SqliteSigningKeys } from './drivers/sqlite/sqlite-signing-keys.js';
import { SqliteAdvisories } from './drivers/sqlite/sqlite-advisories.js';
import { SqliteTeams } from './drivers/sqlite/sqlite-teams.js';
import { SqliteChangeLog } from './drivers/sqlite/sqlite-change-log.js';
import { SqliteStorageUsage } from './drivers/sqlite/sqlite-storage-usage.js';
import { MemoryBlobStore } from './drivers/memory/memory-blob-store.js';
import { MemoryDownloadCounts } from './drivers/memory/memory-download-counts.js';
import { MemoryDatabase, MemoryMetadataStore } from './drivers/memory/memory-metadata-store.js';
import { MemorySearchIndex } from './drivers/memory/memory-search-index.js';
import { MemoryUplinkCache } from './drivers/memory/memory-uplink-cache.js';
import { MemorySigningKeys } from './drivers/memory/memory-signing-keys.js';
import { MemoryAdvisories } from './drivers/memory/memory-advisories.js';
import { MemoryTeams } from './drivers/memory/memory-teams.js';
import { MemoryChangeLog } from './drivers/memory/memory-change-log.js';
import { MemoryStorageUsage } from './drivers/memory/memory-storage-usage.js';
import { MemoryUpstreamAnswers } from './drivers/memory/memory-upstream-answers.js';
import { LocalInvalidationBus } from './drivers/memory/memory-invalidation-bus.js';
import { blobKeysOfVersion, packageOfBlobKey } from './blob-keys.js';
import { ChangeFeedBus } from './change-feed-bus.js';
import { PACKAGES_PER_VERSIONS_QUERY } from './ports.js';
import type {
  PackageChangeFeed,
  AdvisoryStore,
  AuditLogStore,
  BlobStore,
  CollectResult,
  DownloadCountStore,
  InvalidationBus,
  MetadataLifecycle,
  MetadataStore,
  PackageStore,
  AccountStores,
  RenderStore,
  SearchIndex,
  SharedConnection,
  SigningKeyStore,
  StorageUsageStore,
  TenantId,
  UplinkCacheStore,
  UpstreamAnswerStore,
  WebhookStore,
} from './ports.js';
import type { CounterStore } from './counter-store.js';
import type { TeamStore } from './team-store.js';
import { MemoryCounterStore } from './drivers/memory/memory-counter-store.js';

export interface Storage {
  /** Tenants, users, tokens, sessions: the registry-wide part of the metadata database, one store per kind. */
  registry: AccountStores;
  /** Each package's document under its own lock: the per-package part of the same database. */
  packages: PackageStore;
  /** The metadata database's lifecycle (the driver object holding both parts). */
  database: MetadataLifecycle;
  /** Written by the metadata database in each package's write transaction; read here. */
  search: SearchIndex;
  /** Rendered documents beside the packages; absent on the memory driver (it reads no slower than it would). */
  renders: RenderStore | undefined;
  downloadCounts: DownloadCountStore;
  /** Freshness of packages cached from uplinks, in the metadata database. */
  uplinkCache: UplinkCacheStore;
  /** The registries' signing keys, in the metadata database. */
  signingKeys: SigningKeyStore;
  /** Security advisories of the registries' packages, in the metadata database. */
  advisories: AdvisoryStore;
  /** Teams, their members and the namespaces they own, in the metadata database. */
  teams: TeamStore;
  /** The audit log of every registry, in the metadata database. */
  audit: AuditLogStore;
  /** Webhooks and their outbox, in the metadata database (the same driver object as `audit`). */
  webhooks: WebhookStore;
  /** Bytes and packages of each registry, kept in each package's write transaction; the last collection. */
  usage: StorageUsageStore;
  /** Answers of upstream registries (advisories, attestations): in the shared database where there is one. */
  upstreamAnswers: UpstreamAnswerStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** The shared Redis connection, when one is configured (rate limits use it too). */
  redis: SharedConnection | undefined;
  /** True when other processes may share this storage (PostgreSQL): start-up must not assume it is alone. */
  shared: boolean;
  /** Rate-limit and login-throttle counters. */
  counters: CounterStore;
  close(): Promise<void>;
}

export interface CreateStorageOptions {
  log?: StorageLog;
  /** How long start-up waits for Redis before going on without it (it keeps reconnecting). */
  redisWaitMs?: number;
  /** Clock of the scores computed when a package is written (tests move it). */
  now?: () => Date;
}

/** Picks the drivers the configuration names; the only place that knows them all. */
export async function createStorage(config: Config, options: CreateStorageOptions = {}): Promise<Storage> {
  const log = options.log ?? silentLog;
  const opened: { close(): Promise<void> }[] = [];
  try {
    let metadata: MetadataStore;
    let search: SearchIndex;
    let downloadCounts: DownloadCountStore;
    let uplinkCache: UplinkCacheStore;
    let signingKeys: SigningKeyStore;
    let advisories: AdvisoryStore;
    let teams: TeamStore;
    let changeLog: AuditLogStore & WebhookStore;
    let usage: StorageUsageStore;
    let renders: RenderStore;
    // One node on SQLite: nothing to share, kept in its memory.
    let upstreamAnswers: UpstreamAnswerStore = new MemoryUpstreamAnswers();
    let postgres: PostgresMetadataStore | undefined;
    let packageChanges: PackageChangeFeed | undefined;
    const clock = options.now ? { now: options.now } : {};
    if (config.database.startsWith('sqlite:')) {
      const searchIndex = new SqliteSearchIndex(clock);
      const counts = new SqliteDownloadCounts();
      const uplinks = new SqliteUplinkCache();
      const keys = new SqliteSigningKeys();
      const advisoryStore = new SqliteAdvisories();
      const teamStore = new SqliteTeams();
      const changes = new SqliteChangeLog();
      const usageStore = new SqliteStorageUsage();
      const renderStore = new SqliteRenderStore();
      // Stores beside the documents, in the order of their migrations: the usage's reads the uplink cache's table.
      const beside = [searchIndex, counts, uplinks, keys, advisoryStore, teamStore, changes, usageStore, renderStore];
      const store = new SqliteMetadataStore(
        config.database.slice('sqlite:'.length),
        beside.map((part) => part.writeHook),
        { cacheBytes: config.databaseCache },
      );
      for (const part of beside) part.attach(store.db);
      changeLog = changes;
      usage = usageStore;
      renders = renderStore;
      uplinkCache = uplinks;
      signingKeys = keys;
      advisories = advisoryStore;
      teams = teamStore;
      metadata = store;
      search = searchIndex;
      downloadCounts = counts;
    } else if (/^postgres(ql)?:\/\//.test(config.database)) {
      // The scale-out drivers (pg, ioredis, the AWS SDK) are loaded only when configured: the
      // embedded default does not pay their memory (tens of MiB).
      const { parsePostgresUrl } = await import('./drivers/postgres/pg-connection.js');
      const { PostgresMetadataStore } = await import('./drivers/postgres/postgres-metadata-store.js');
      const { PostgresSearchIndex } = await import('./drivers/postgres/postgres-search-index.js');
      const { PostgresDownloadCounts } = await import('./drivers/postgres/postgres-download-counts.js');
      const { PostgresUplinkCache } = await import('./drivers/postgres/postgres-uplink-cache.js');
      const { PostgresSigningKeys } = await import('./drivers/postgres/postgres-signing-keys.js');
      const { PostgresAdvisories } = await import('./drivers/postgres/postgres-advisories.js');
      const { PostgresTeams } = await import('./drivers/postgres/postgres-teams.js');
      const { PostgresChangeLog } = await import('./drivers/postgres/postgres-change-log.js');
      const { PostgresStorageUsage } = await import('./drivers/postgres/postgres-storage-usage.js');
      const { PostgresUpstreamAnswers } = await import('./drivers/postgres/postgres-upstream-answers.js');
      const { PostgresRenderStore } = await import('./drivers/postgres/postgres-render-store.js');
      const { PostgresPackageChanges } = await import('./drivers/postgres/postgres-package-changes.js');
      const searchIndex = new PostgresSearchIndex(clock);
      const counts = new PostgresDownloadCounts();
      const uplinks = new PostgresUplinkCache();
      const keys = new PostgresSigningKeys();
      const advisoryStore = new PostgresAdvisories();
      const teamStore = new PostgresTeams();
      const changes = new PostgresChangeLog();
      const usageStore = new PostgresStorageUsage();
      const answers = new PostgresUpstreamAnswers();
      const renderStore = new PostgresRenderStore();
      const changeFeed = new PostgresPackageChanges();
      // As for SQLite: in the order of their migrations.
      const beside = [
        searchIndex,
        counts,
        uplinks,
        keys,
        advisoryStore,
        teamStore,
        changes,
        usageStore,
        answers,
        renderStore,
        changeFeed,
      ];
      postgres = new PostgresMetadataStore(
        parsePostgresUrl(config.database),
        beside.map((part) => part.writeHook),
      );
      for (const part of beside) part.attach(postgres.pool);
      upstreamAnswers = answers;
      changeLog = changes;
      usage = usageStore;
      renders = renderStore;
      packageChanges = changeFeed;
      uplinkCache = uplinks;
      signingKeys = keys;
      advisories = advisoryStore;
      teams = teamStore;
      metadata = postgres;
      search = searchIndex;
      downloadCounts = counts;
    } else {
      throw new ConfigError(`database '${redactUrlCredentials(config.database)}' is not supported by this build`);
    }
    opened.push(metadata);

    const blobs = await openBlobStore(config);
    opened.push(blobs);

    let redis: RedisConnection | undefined;
    let bus: InvalidationBus;
    let pgBus: PostgresInvalidationBus | undefined;
    let counters: CounterStore;
    if (config.redis !== undefined) {
      const { RedisConnection } = await import('./drivers/redis/redis-connection.js');
      const { RedisInvalidationBus } = await import('./drivers/redis/redis-invalidation-bus.js');
      const { parseRedisUrl } = await import('./drivers/redis/redis-location.js');
      const { createRedisCounterStore } = await import('./drivers/redis/redis-counter-store.js');
      redis = new RedisConnection(parseRedisUrl(config.redis), log);
      opened.push(redis);
      const redisBus = new RedisInvalidationBus(redis);
      bus = redisBus;
      // Start-up does not depend on Redis: without it the node serves, counting limits itself.
      await redisBus.waitUntilConnected(options.redisWaitMs ?? 3000);
      counters = createRedisCounterStore(redis);
    } else if (postgres !== undefined) {
      const { PostgresInvalidationBus } = await import('./drivers/postgres/postgres-invalidation-bus.js');
      pgBus = new PostgresInvalidationBus(postgres.location, postgres.pool, log);
      bus = pgBus;
      opened.push(pgBus);
      counters = createMemoryCounterStore();
    } else {
      bus = new LocalInvalidationBus();
      counters = createMemoryCounterStore();
    }

    await metadata.migrate(log);
    if (pgBus) await pgBus.start();
    if (packageChanges !== undefined) {
      // Every node reads the database's log of package writes too: what the channel loses, it tells.
      const feedBus = new ChangeFeedBus(bus, packageChanges, { log });
      bus = feedBus;
      opened.push(feedBus);
      await feedBus.start();
    }
    return {
      ...parts(metadata),
      search,
      renders,
      downloadCounts,
      uplinkCache,
      signingKeys,
      advisories,
      teams,
      audit: changeLog,
      webhooks: changeLog,
      usage,
      upstreamAnswers,
      blobs,
      bus,
      counters,
      redis,
      shared: postgres !== undefined,
      async close() {
        await counters.close();
        await bus.close();
        await redis?.close();
        await blobs.close();
        await metadata.close();
      },
    };
  } catch (err) {
    for (const resource of opened.reverse()) await resource.close().catch(() => undefined);
    throw err;
  }
}

/** A PostgreSQL registry's records as they were at one moment, read only (a backup's source). */
export interface MetadataSnapshot {
  registry: AccountStores;
  packages: PackageStore;
  downloadCounts: DownloadCountStore;
  signingKeys: SigningKeyStore;
  teams: TeamStore;
  advisories: AdvisoryStore;
  audit: AuditLogStore;
  webhooks: WebhookStore;
  /** False when the session holding the snapshot was lost and reads may have left it. */
  stillConsistent(): boolean;
  close(): Promise<void>;
}

/**
 * Opens one REPEATABLE READ, READ ONLY transaction on the configured PostgreSQL database and
 * reads every record through it: the database as it is now, whatever other nodes commit next.
 * Nothing is migrated or written.
 */
export async function openPostgresSnapshot(config: Pick<Config, 'database'>): Promise<MetadataSnapshot> {
  const { beginSnapshot, parsePostgresUrl } = await import('./drivers/postgres/pg-connection.js');
  const { PostgresMetadataStore } = await import('./drivers/postgres/postgres-metadata-store.js');
  const { PostgresDownloadCounts } = await import('./drivers/postgres/postgres-download-counts.js');
  const { PostgresSigningKeys } = await import('./drivers/postgres/postgres-signing-keys.js');
  const { PostgresTeams } = await import('./drivers/postgres/postgres-teams.js');
  const { PostgresAdvisories } = await import('./drivers/postgres/postgres-advisories.js');
  const { PostgresChangeLog } = await import('./drivers/postgres/postgres-change-log.js');
  const store = new PostgresMetadataStore(parsePostgresUrl(config.database), [], { snapshot: true });
  try {
    const stillConsistent = await beginSnapshot(store.pool);
    const downloadCounts = new PostgresDownloadCounts();
    downloadCounts.attach(store.pool);
    const signingKeys = new PostgresSigningKeys();
    signingKeys.attach(store.pool);
    const teams = new PostgresTeams();
    teams.attach(store.pool);
    // Their reads are single statements, as the snapshot session requires (it must not begin or end a transaction).
    const advisories = new PostgresAdvisories();
    advisories.attach(store.pool);
    const changeLog = new PostgresChangeLog();
    changeLog.attach(store.pool);
    return {
      registry: store.accounts,
      packages: store,
      downloadCounts,
      signingKeys,
      teams,
      advisories,
      audit: changeLog,
      webhooks: changeLog,
      stillConsistent,
      close: () => store.close(),
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** The tarball store the configuration names: a directory (created when missing) or S3. */
export async function openBlobStore(config: Pick<Config, 'storage'>): Promise<BlobStore> {
  if (config.storage.startsWith('s3://')) {
    const { S3BlobStore } = await import('./drivers/s3/s3-blob-store.js');
    const { parseS3Url } = await import('./drivers/s3/s3-location.js');
    return new S3BlobStore(parseS3Url(config.storage));
  }
  const fsBlobs = new FsBlobStore(config.storage);
  await fsBlobs.init();
  return fsBlobs;
}

/**
 * A whole storage in process memory: a memory driver of every port (metadata, search index,
 * download counts, blobs, the one-process bus and counters). Services can be tested on it alone,
 * and the app with `inject()`, without a database or a data directory.
 */
export function createMemoryStorage(options: { now?: () => Date } = {}): Storage {
  const database = new MemoryDatabase();
  const tenantExists = (tenant: string) => database.tenantExists(tenant);
  const counts = new MemoryDownloadCounts(new Map(), tenantExists);
  const search = new MemorySearchIndex(counts, options);
  const uplinkCache = new MemoryUplinkCache(new Map(), tenantExists);
  const signingKeys = new MemorySigningKeys(tenantExists);
  const advisories = new MemoryAdvisories(tenantExists);
  const teams = new MemoryTeams(tenantExists);
  const changeLog = new MemoryChangeLog(tenantExists);
  const usage = new MemoryStorageUsage();
  const metadata = new MemoryMetadataStore(database, [
    search.writeHook,
    counts.writeHook,
    uplinkCache.writeHook,
    signingKeys.writeHook,
    advisories.writeHook,
    teams.writeHook,
    changeLog.writeHook,
    usage.writeHook,
  ]);
  const blobs = new MemoryBlobStore();
  const bus = new LocalInvalidationBus();
  const counters = createMemoryCounterStore();
  return {
    ...parts(metadata),
    search,
    renders: undefined,
    downloadCounts: counts,
    blobs,
    bus,
    counters,
    redis: undefined,
    shared: false,
    uplinkCache,
    signingKeys,
    advisories,
    teams,
    audit: changeLog,
    webhooks: changeLog,
    usage,
    upstreamAnswers: new MemoryUpstreamAnswers(),
    async close() {
      await counters.close();
    },
  };
}

/** The driver object of the metadata database, as the parts the rest of the server receives. */
function parts(metadata: MetadataStore): Pick<Storage, 'registry' | 'packages' | 'database'> {
  return { registry: metadata.accounts, packages: metadata, database: metadata };
}

/** What one collection removed (the `at` of a CollectResult is the caller's). */
export type Collected = Omit<CollectResult, 'at'>;

/**
 * Removes tarballs no package references (a crash between blob write and metadata commit), and
 * what interrupted uploads left (temporary files, incomplete S3 multipart uploads), each only
 * when older than `olderThanMs`.
 */
export async function collectOrphanBlobs(
  storage: Pick<Storage, 'blobs' | 'packages'>,
  olderThanMs: number,
  now = new Date(),
  signal?: AbortSignal,
): Promise<Collected> {
  const leftovers = (await storage.blobs.cleanIncompleteUploads?.(olderThanMs, now)) ?? {
    temporaryFiles: 0,
    incompleteUploads: 0,
  };
  // Blob stores list a package's blobs together (a directory, a key prefix): the keys of a few
  // hundred packages are held at a time, not every key of the registry (millions of strings at
  // scale), and their versions are asked for in one query.
  // Only the candidates need their time: list keys alone where the store can.
  const { blobs } = storage;
  const listed: AsyncIterable<ListedBlob[]> = blobs.listKeyGroups
    ? (async function* () {
        for await (const keys of blobs.listKeyGroups!()) yield keys.map((key) => ({ key }));
      })()
    : (async function* () {
        for await (const blob of blobs.list()) yield [blob];
      })();
  let orphans = 0;
  const sweepBatch = async (batch: ListedBlob[], referenced: Set<string>) => {
    for (const blob of batch) {
      if (signal?.aborted) return;
      if (referenced.has(blob.key)) continue;
      const modified = blob.modified ?? (await blobs.stat(blob.key))?.modified;
      if (modified === undefined || now.getTime() - modified.getTime() < olderThanMs) continue;
      await blobs.delete(blob.key);
      orphans++;
    }
  };
  let batch: { tenant: TenantId; names: Set<string>; blobs: ListedBlob[] } | undefined;
  const sweepPackages = async () => {
    if (batch === undefined) return;
    const { tenant, names } = batch;
    const referenced = new Set<string>();
    for (const [name, versions] of await storage.packages.versionsOfPackages(tenant, [...names])) {
      for (const version of versions) for (const key of blobKeysOfVersion(tenant, name, version)) referenced.add(key);
    }
    const listedBlobs = batch.blobs;
    batch = undefined;
    await sweepBatch(listedBlobs, referenced);
  };
  for await (const group of listed) {
    for (const blob of group) {
      if (signal?.aborted) break;
      const owner = packageOfBlobKey(blob.key);
      // A key of no package is referenced by none.
      if (owner === undefined) {
        await sweepBatch([blob], new Set());
        continue;
      }
      const full = batch !== undefined && !batch.names.has(owner.name) && batch.names.size >= PACKAGES_PER_VERSIONS_QUERY;
      if (batch !== undefined && (batch.tenant !== owner.tenant || full)) await sweepPackages();
      batch ??= { tenant: owner.tenant, names: new Set(), blobs: [] };
      batch.names.add(owner.name);
      batch.blobs.push(blob);
    }
    if (signal?.aborted) break;
  }
  if (!signal?.aborted) await sweepPackages();
  return { orphans, ...leftovers };
}

interface ListedBlob {
  key: string;
  modified?: Date;
}

export function redactUrlCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** The embedded default: counters in this process's memory. */
export function createMemoryCounterStore(): CounterStore {
  return new MemoryCounterStore();
}

/** Upstream answers in this process's memory: one node, nothing to share (also the services' default). */
export function createMemoryUpstreamAnswers(): UpstreamAnswerStore {
  return new MemoryUpstreamAnswers();
}
