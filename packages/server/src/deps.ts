import type { Config } from './config/config.js';
import type { CounterStore } from './storage/counter-store.js';
import type { TeamStore } from './storage/team-store.js';
import type {
  AdvisoryStore,
  AuditLogStore,
  BlobStore,
  DownloadCountStore,
  InvalidationBus,
  MetadataLifecycle,
  PackageStore,
  AccountStores,
  RenderStore,
  SearchIndex,
  SharedConnection,
  SigningKeyStore,
  StorageUsageStore,
  UpstreamAnswerStore,
  UplinkCacheStore,
  WebhookStore,
} from './storage/ports.js';

/** Everything the server does IO through, built by main.ts (or by a test) and passed in. */
export interface ServerDeps {
  config: Config;
  /** Tenants, users, tokens, sessions: one store per kind. */
  registry: AccountStores;
  /** Each package, through its handle (reads, update under the package's lock). */
  packages: PackageStore;
  /** The metadata database holding both: what readiness asks of it. */
  database: Pick<MetadataLifecycle, 'ping'>;
  /** Read side of the search index that the metadata database keeps in its write transactions. */
  search: SearchIndex;
  /** Rendered documents kept beside the packages, when the metadata database keeps them. */
  renders?: RenderStore | undefined;
  downloadCounts: DownloadCountStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** The shared Redis connection, when one is configured (readiness, its metric). */
  redis?: SharedConnection | undefined;
  /**
   * True when other processes may share this storage (PostgreSQL): caches then keep nothing
   * longer than a second. createStorage decides it with the drivers.
   */
  shared: boolean;
  /** Rate-limit and login-throttle counters; in-process ones when not given. */
  counters?: CounterStore;
  /** Freshness of packages cached from uplinks; kept in memory when not given. */
  uplinkCache: UplinkCacheStore;
  /** The registries' signing keys (dist.signatures, /-/npm/v1/keys). */
  signingKeys: SigningKeyStore;
  /** Security advisories of the registries' packages. */
  advisories: AdvisoryStore;
  /** Teams and the namespaces they own (who may publish a new package). */
  teams: TeamStore;
  /** The audit log (every change, and refused attempts at one). */
  audit: AuditLogStore;
  /** Webhook subscriptions and their outbox. */
  webhooks: WebhookStore;
  /** Bytes and packages of each registry (quotas, metrics) and the last collection. */
  usage: StorageUsageStore;
  /** Answers of upstream registries (advisories, attestations), shared where the store is; in memory when not given. */
  upstreamAnswers?: UpstreamAnswerStore;
  /** Where uplink tokens (`tokenEnv`) are read; process.env when not given. */
  env?: NodeJS.ProcessEnv;
  /** Injectable clock: tests move time instead of sleeping. */
  now: () => Date;
  /** The same clock in milliseconds, without making a Date (per-request reads); from `now` when not given. */
  nowMs?: () => number;
}

/** The deps of a server on `storage` (what main and the test kit both build). */
export function serverDeps(
  config: Config,
  storage: Pick<
    ServerDeps,
    | 'registry'
    | 'packages'
    | 'database'
    | 'search'
    | 'renders'
    | 'downloadCounts'
    | 'blobs'
    | 'bus'
    | 'counters'
    | 'redis'
    | 'shared'
    | 'uplinkCache'
    | 'signingKeys'
    | 'advisories'
    | 'teams'
    | 'audit'
    | 'webhooks'
    | 'usage'
    | 'upstreamAnswers'
  >,
  now?: () => Date,
): ServerDeps {
  const { registry, packages, database, search, renders, downloadCounts, blobs, bus, counters, redis, shared } = storage;
  const { uplinkCache, signingKeys, advisories, teams, audit, webhooks, usage, upstreamAnswers } = storage;
  return {
    config,
    registry,
    packages,
    database,
    search,
    ...(renders ? { renders } : {}),
    downloadCounts,
    blobs,
    bus,
    ...(counters ? { counters } : {}),
    redis,
    shared,
    uplinkCache,
    signingKeys,
    advisories,
    teams,
    audit,
    webhooks,
    usage,
    ...(upstreamAnswers ? { upstreamAnswers } : {}),
    now: now ?? (() => new Date()),
    nowMs: now ? () => now().getTime() : Date.now,
  };
}
