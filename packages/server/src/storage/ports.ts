import type { MigrationLog } from './schema-history.js';
/**
 * The storage seam. Routes and services reach metadata and tarballs only through these
 * interfaces; every driver (SQLite, PostgreSQL; filesystem, S3) passes the same contract suite.
 * Every call is scoped by tenant: tenants share nothing.
 */
import type { Readable } from 'node:stream';
import { ProtocolError, type PackageDocument } from '@pkg/protocol';
import type { SearchPage, SearchQuery } from '../search/search-types.js';
import type { UplinkConfig } from '../config/uplink-config.js';

export type { SearchHit, SearchPage } from '../search/search-types.js';

/** Tenant id: `''` is the global registry, anything else a tenant's DNS label. */
export type TenantId = string;
export const GLOBAL_TENANT: TenantId = '';

/**
 * A write to a tenant that no longer exists: the administrator deleted it (maybe from another
 * process) while requests were arriving. Stores check the tenant inside the write's own
 * transaction, so nothing is ever written to a tenant after its delete returned; the caller
 * gets the 404 an unknown tenant host gets.
 */
export class TenantGoneError extends ProtocolError {
  constructor(tenant: TenantId) {
    super('NOT_FOUND', `There is no registry '${tenant.slice(0, 63)}': it was deleted`);
  }
}

export interface TenantRecord {
  name: TenantId;
  /**
   * This incarnation of the tenant: random, made when the tenant is created. A tenant deleted
   * and created again under the same name has another, and every cache of a node or a shared
   * store keys what it keeps of a tenant by it (services/tenant-service.ts `scopeOf`), so the
   * new tenant starts empty everywhere.
   */
  incarnation: string;
  createdAt: string;
  /** Per-tenant overrides; unset fields fall back to the server configuration. */
  settings: TenantSettings;
}

export interface TenantSettings {
  signup?: boolean;
  readAccess?: 'anonymous' | 'token';
  requireTwoFactor?: boolean;
  rateLimitAnonymous?: number;
  rateLimitAuthenticated?: number;
  rateLimitPublish?: number;
  quotaBytes?: number;
  quotaPackages?: number;
  uplinks?: UplinkConfig[];
}

export interface UserRecord {
  name: string;
  email: string;
  /** `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`. */
  passwordHash: string;
  createdAt: string;
  disabled: boolean;
  /** Two-factor sign-in (TOTP); absent or null: none. */
  secondFactor?: SecondFactor | null;
  /**
   * An administrator of this registry (the global one or a tenant): manages its users and
   * invitations over the HTTP API and the web. Absent: false.
   */
  admin?: boolean;
}

/**
 * A user's second factor: a TOTP secret (RFC 6238) and the modes of npm's profile API. While
 * `pending`, enrolment waits for its first code and nothing asks for one.
 */
export interface SecondFactor {
  mode: 'auth-only' | 'auth-and-writes';
  /** The shared secret, base32, as the authenticator app holds it. */
  secret: string;
  pending: boolean;
  /** sha256 hex of each unused recovery code. */
  recoveryCodes: string[];
  /** The last time step whose code was accepted: a code is good once. */
  lastStep: number;
  createdAt: string;
}

export interface TokenRecord {
  /** sha256 hex of the token; the token itself is never stored. */
  hash: string;
  user: string;
  createdAt: string;
  /** ISO time after which the token is refused; null: never expires. */
  expiresAt: string | null;
  readonly: boolean;
  /**
   * The first characters of the token, kept so a user can recognise it in a token list
   * (a few characters of 256 random bits give nothing away). Absent on older tokens.
   */
  prefix?: string;
  /** What the token is limited to beyond `readonly` and `expiresAt`; absent on older tokens: no limits. */
  scope?: TokenScope;
  /** When the token was last used (recorded at most once a minute per token); absent: never. */
  lastUsedAt?: string;
  /** The client address of that last use. */
  lastAddress?: string;
}

/**
 * The limits of a token beyond read-only and expiry (npm's own token fields, and our additions
 * that npm ignores). Every route enforces them.
 */
export interface TokenScope {
  /** The owner's label for it (npm's `name`). */
  name?: string;
  /** Addresses the token may be used from, as CIDR ranges; absent or empty: anywhere. */
  cidrWhitelist?: string[];
  /**
   * Packages the token may read and change, each a name or a namespace (`com.studio.*`, the
   * uplinks' form); absent: every package.
   */
  packages?: string[];
  /** May read and publish new versions, nothing else (no dist-tags, owners, deprecation, unpublish). */
  publishOnly?: boolean;
  /** For CI: never asked for a one-time password (npm's `bypass_2fa`). */
  automation?: boolean;
}

/** One use of a token, recorded in batches (never a write per request). */
export interface TokenUse {
  hash: string;
  at: string;
  address: string;
}

/**
 * A short-lived session found by the hash of a secret its holder presents: a browser signed in
 * to the web interface, or an `npm login` waiting for its user to sign in in the browser.
 * Stored in the metadata store so that every server process sees it.
 */
export interface SessionRecord {
  /** sha256 hex of the secret; the secret itself is never stored. */
  hash: string;
  /** What the session is for (`web`, `npm-login`, `npm-login-page`). */
  kind: string;
  /** The signed-in user; null while a login is still pending. */
  user: string | null;
  /** Small JSON facts the session's owner needs. */
  data: Record<string, unknown>;
  createdAt: string;
  /** ISO time from which the session no longer exists for any reader. */
  expiresAt: string;
}

/** A package as stored: its full document (tarball URLs as relative paths) and its history. */
export interface StoredPackage {
  document: PackageDocument;
  /** Every version ever published, including unpublished ones: versions are never reused. */
  publishedVersions: string[];
  /** True when the whole package was unpublished (a tombstone: reads answer 404). */
  unpublished: boolean;
  /**
   * Only on a write, never read back: the sizes of the versions this write adds, for the
   * storage usage the metadata database keeps in the same transaction (storage/storage-usage.ts).
   */
  usage?: UsageChange;
  /**
   * Only on a read, when the driver has it at no cost: the length of the document's JSON as
   * stored, which sizes a cached form of it without serializing that (services/package-reads.ts).
   */
  documentBytes?: number;
  /**
   * Only on a read, from drivers that keep rendered documents (`RenderStore`): the store's count
   * of the package's writes, which a render made from this read is kept against.
   */
  revision?: number;
}

/**
 * A package document in one form, rendered for one tarball base URL, kept by the metadata
 * database beside the package: a read that the in-memory cache misses is then one row, not a
 * read, parse, render and compression of the document (docs/architecture.md, "Rendered
 * documents").
 */
export interface StoredRender {
  form: 'full' | 'abbreviated';
  /** The tarball base URL its tarball links were made with. */
  baseUrl: string;
  /** Strong validator of the identity JSON. */
  etag: string;
  /** The document's modification time, milliseconds since the epoch. */
  lastModified: number | undefined;
  /** Bytes of the identity JSON. */
  size: number;
  /** `gzip`: `body` is the identity JSON gzipped; absent: `body` is the identity JSON (too small to compress). */
  coding: 'gzip' | undefined;
  body: Buffer;
}

/** A render kept of a package (and then not the package), or the package to render. */
export type RenderOrPackage = { render: StoredRender; package?: undefined } | { render?: undefined; package: StoredPackage };

/**
 * Rendered documents, kept by the metadata database. A package's renders go with any change of
 * the package (the database drops them in the write's own transaction), so one found is always
 * of the package as it is now. Each form keeps one render, of the base URL it was last kept for
 * (services/package-reads.ts keeps and reads one base URL per registry), so its rows are
 * bounded by the packages: two per package at most.
 */
export interface RenderStore {
  /**
   * What a miss of the document cache needs, in one read of the database: the render of `form`
   * for `baseUrl` of the package as it is now, else the package as stored (with its revision, to
   * keep a render of it against); undefined when there is no such package.
   */
  readRenderOrPackage(
    tenant: TenantId,
    name: string,
    form: StoredRender['form'],
    baseUrl: string,
  ): Promise<RenderOrPackage | undefined>;
  /**
   * Keeps `render`, made from the package read at `revision`, in place of the form's render of
   * any base URL. Keeps nothing when the package has been written since.
   */
  keepRender(tenant: TenantId, name: string, revision: number, render: StoredRender): Promise<void>;
  /**
   * `keepRender` of several renders of one tenant's packages in one write, each kept on the
   * same terms (at most one per package and form): what a bulk load that renders each package
   * it wrote, as a write of the server does, keeps.
   */
  keepRenders(tenant: TenantId, renders: readonly KeptRender[]): Promise<void>;
}

/** One render for `RenderStore.keepRenders`: made from the package `name` read at `revision`. */
export interface KeptRender {
  name: string;
  revision: number;
  render: StoredRender;
}

/** What a package write tells the storage usage table beside its document. */
export interface UsageChange {
  /** Bytes and blobs (tarball, provenance bundle) of each version the write adds. */
  added: Readonly<Record<string, VersionUsage>>;
  /**
   * The registry's quotas: the write is refused (QuotaExceededError, nothing written) when it
   * adds bytes past `bytes`, or a package past `packages`. Checked in the write's transaction,
   * after every write committed before it, so concurrent publishes cannot pass a quota together.
   */
  limit?: UsageLimit;
}

export interface VersionUsage {
  bytes: number;
  files: number;
}

/** A registry's quotas; 0 or absent: no limit. */
export interface UsageLimit {
  bytes?: number;
  packages?: number;
}

/** What one registry holds: the versions' blobs and the packages with at least one version. */
export interface RegistryUsage {
  bytes: number;
  files: number;
  packages: number;
}

/** The result of one `storage collect` (by the command or the server's start-up sweep). */
export interface CollectResult {
  /** When it finished (ISO time). */
  at: string;
  /** Blobs no version references. */
  orphans: number;
  /** Temporary files of interrupted uploads (file system). */
  temporaryFiles: number;
  /** Incomplete multipart uploads aborted (S3). */
  incompleteUploads: number;
}

/**
 * The storage usage of every registry, kept by the metadata database in each package's write
 * transaction (publish, unpublish, retention, copies), so that every node sharing it reads the
 * same figures; and the last collection's result.
 */
export interface StorageUsageStore {
  usage(tenant: TenantId): Promise<RegistryUsage>;
  /** Every registry holding anything. */
  all(): Promise<Map<TenantId, RegistryUsage>>;
  /**
   * The versions of a registry whose size is not known yet (published before sizes were
   * recorded): the server measures their blobs once it listens (services/usage-backfill.ts).
   */
  unmeasured(tenant: TenantId): Promise<{ name: string; version: string }[]>;
  recordCollect(result: CollectResult): Promise<void>;
  lastCollect(): Promise<CollectResult | undefined>;
}

/**
 * What a package mutation decides. `next: null` leaves the package as it was.
 * Throwing a ProtocolError aborts the mutation and changes nothing.
 */
export interface PackageMutation<T> {
  next: StoredPackage | null;
  result: T;
}

/** The tenant registries a server serves beside the global one (`''`, which has no record). */
export interface TenantStore {
  get(name: TenantId): Promise<TenantRecord | undefined>;
  list(): Promise<TenantRecord[]>;
  /** False when a tenant of that name already exists. */
  create(tenant: TenantRecord): Promise<boolean>;
  updateSettings(name: TenantId, settings: TenantSettings): Promise<boolean>;
  /**
   * Deletes the tenant and everything it holds (accounts, packages, and the rows of every store
   * beside them) in one transaction; false when it did not exist.
   */
  delete(name: TenantId): Promise<boolean>;
}

/** The accounts of each registry, with their administrator flag and second factor. */
export interface UserStore {
  get(tenant: TenantId, name: string): Promise<UserRecord | undefined>;
  /** False when the user already exists (concurrent sign-ups of one name: one wins). */
  create(tenant: TenantId, user: UserRecord): Promise<boolean>;
  update(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean>;
  list(tenant: TenantId): Promise<UserRecord[]>;
  /**
   * Deletes a user with its tokens and sessions, in one transaction; false when there was no
   * such user. Its packages are not touched (they keep their maintainers lists).
   */
  delete(tenant: TenantId, name: string): Promise<boolean>;
}

/** The tokens of each registry's users, by the hash of the secret. */
export interface TokenStore {
  create(tenant: TenantId, token: TokenRecord): Promise<void>;
  get(tenant: TenantId, hash: string): Promise<TokenRecord | undefined>;
  /** Every token of a tenant, ordered by hash (copying a registry). */
  list(tenant: TenantId): Promise<TokenRecord[]>;
  /** The tokens of one user, newest first. */
  listOfUser(tenant: TenantId, user: string): Promise<TokenRecord[]>;
  delete(tenant: TenantId, hash: string): Promise<boolean>;
  /** Revokes every token of a user (disable, password reset). */
  deleteOfUser(tenant: TenantId, user: string): Promise<number>;
  /**
   * Records when and from where tokens were last used (one batch of many uses); tokens that no
   * longer exist are skipped. Not a credentials change: it leaves credentialsVersion alone.
   */
  recordUses(tenant: TenantId, uses: TokenUse[]): Promise<void>;
}

/**
 * Short-lived sessions found by the hash of a secret: browsers signed in to the web interface,
 * `npm login`s waiting in the browser, invitations.
 */
export interface SessionStore {
  create(tenant: TenantId, session: SessionRecord): Promise<void>;
  /** The session, unless it does not exist or has expired at `now` (ISO time). */
  get(tenant: TenantId, hash: string, now: string): Promise<SessionRecord | undefined>;
  /**
   * Signs a pending session (user null, not expired at `now`) in as `user`. Exactly one of
   * concurrent callers gets true; a session already claimed stays with its first user.
   */
  claim(tenant: TenantId, hash: string, user: string, now: string): Promise<boolean>;
  /** Removes a session; exactly one of concurrent callers gets true (single-use sessions rely on it). */
  delete(tenant: TenantId, hash: string): Promise<boolean>;
  /** Removes the sessions of every tenant that have expired at `now`; returns how many. */
  deleteExpired(now: string): Promise<number>;
}

/**
 * The registry-wide records of a metadata database, one store per kind, each with its own
 * contract suite (test/contract/<kind>-store.*). A service receives this group and uses the
 * kinds it needs; the stores of one group share the database's connection and transactions
 * (deleting a tenant or a user removes its records of every kind at once).
 */
export interface AccountStores {
  readonly tenants: TenantStore;
  readonly users: UserStore;
  readonly tokens: TokenStore;
  readonly sessions: SessionStore;
  /**
   * Optional: a number, read cheaply and synchronously, that changes whenever a tenant, user or
   * token changed through these stores, and also (when `credentialsVersionCoversOthers`) when
   * another process wrote them. Lets the server keep authenticated tokens in memory without
   * missing a revocation; what the version cannot see, it asks again about every second.
   */
  credentialsVersion?(): number;
  readonly credentialsVersionCoversOthers?: boolean;
}

/**
 * The per-package records of a metadata store: a handle on each package, and the lists that walk
 * every package. (Verdaccio's `Storage.getPackageStorage`.)
 */
export interface PackageStore {
  /**
   * The handle of one package. It holds only the tenant and name (no document, no lock, no
   * connection): cheap to ask for per operation, and safe to keep.
   */
  package(tenant: TenantId, name: string): PackageHandle;
  /** Names of all packages of a tenant, sorted; tombstones only with `includeUnpublished`. */
  listPackageNames(tenant: TenantId, options?: { includeUnpublished?: boolean }): Promise<string[]>;
  /**
   * The versions in the documents of several packages of one tenant, read by the database
   * without the documents being parsed here, in one round trip (the sweep of orphan tarballs and
   * `storage report` ask for every package). A name of no package, or of a package without
   * versions, is absent from the answer.
   */
  versionsOfPackages(tenant: TenantId, names: readonly string[]): Promise<Map<string, string[]>>;
  /**
   * Sets several packages of one tenant to the given states, all in one transaction: each as an
   * `update` whose mutation answers that state would, with the same rows written beside it (the
   * search row, the storage usage, the change feed). For copies of packages whose state does not
   * depend on what the target holds: a migration, a restore, a bulk load. Names must differ; an
   * empty list writes nothing. Throws, writing nothing, as `update` would for any of them (a
   * deleted tenant, a quota).
   */
  writePackages(tenant: TenantId, writes: readonly PackageWrite[]): Promise<void>;
  /**
   * Several packages of one tenant as stored (tombstones included), in one read: each of
   * `names` that exists, by name. For walks of many packages: a copy reads its source with it,
   * and a bulk load reads back what it wrote to render it.
   */
  readPackages(tenant: TenantId, names: readonly string[]): Promise<Map<string, StoredPackage>>;
}

/** One package's state for `PackageStore.writePackages`. */
export interface PackageWrite {
  name: string;
  next: StoredPackage;
}

/**
 * How many packages the callers of `writePackages` pass at once: one transaction and a few
 * statements for all of them, where each alone would be a transaction of its own; a few dozen
 * keep a transaction's locks and its statements' parameters small.
 */
export const PACKAGES_PER_WRITE = 50;

/**
 * How many names the callers of `versionsOfPackages` pass at once: a round trip per package was
 * most of a PostgreSQL sweep's time, and a few hundred keeps what one answer holds small.
 */
export const PACKAGES_PER_VERSIONS_QUERY = 256;

/**
 * One package of one tenant: its document and history, read whole and changed under the
 * package's own lock. (Verdaccio's per-package `StorageHandler`.)
 */
export interface PackageHandle {
  readonly tenant: TenantId;
  readonly name: string;
  /** The package as stored (tombstones included), or undefined when it never existed. */
  read(): Promise<StoredPackage | undefined>;
  /**
   * Read-modify-write of the package, atomic and serialized per package across processes.
   * While `mutate` runs, no other update of that package runs in this process, nor, on
   * PostgreSQL, on any node (SQLite serves one process). `mutate` may still run more than once
   * when another writer got there first, so it must have no effects besides idempotent ones
   * (writing a blob under a content-derived key is fine).
   */
  update<T>(mutate: PackageMutator<T>): Promise<T>;
}

/** Decides a package's next state from its current one (undefined: it does not exist). */
export type PackageMutator<T> = (current: StoredPackage | undefined) => Promise<PackageMutation<T>> | PackageMutation<T>;

/** The lifecycle of the database that holds both parts. */
export interface MetadataLifecycle {
  /**
   * Creates or upgrades the schema, reporting each migration to `log` as it runs; safe when
   * several processes start at once. Refuses (NewerDataError) data a newer release migrated.
   */
  migrate(log?: MigrationLog): Promise<void>;
  close(): Promise<void>;
  /** Readiness: resolves when the database answers a query. */
  ping(): Promise<void>;
  /** Optional: brings the database up to date after a bulk import (`pkg-registry migrate`). */
  afterBulkImport?(): Promise<void>;
}

/**
 * One database holding both parts, with its lifecycle: what a driver implements. Every driver
 * passes the contract suites of every part; services and admin code receive only the part they use.
 */
export interface MetadataStore extends PackageStore, MetadataLifecycle {
  /** The account stores on this database's connection. */
  readonly accounts: AccountStores;
}

export interface BlobInfo {
  size: number;
  modified: Date;
}

/** Bytes `start` to `end` of a blob, both included (an HTTP `Range`, resolved against the size). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * A blob being written as a stream: nothing of it is visible under its key until `commit`, and
 * `abort` leaves nothing behind. The driver holds at most a bounded part of it in memory.
 */
export interface BlobUpload {
  /**
   * Appends bytes; resolves when the caller may send more (the store's backpressure). The
   * upload may keep `chunk` until it writes it: the caller must not change it afterwards.
   */
  write(chunk: Buffer): Promise<void>;
  /** Makes the bytes written so far visible whole under the key (replacing any blob there). */
  commit(): Promise<void>;
  /** Drops what was written; safe after a failed write or commit, and more than once. */
  abort(): Promise<void>;
}

/** What BlobStore.readSmall found: the bytes only of a blob of at most the size asked. */
export interface SmallBlob {
  size: number;
  bytes: Buffer | undefined;
}

/** Tarball bytes by key. A blob is visible whole or not at all. */
export interface BlobStore {
  put(key: string, data: Buffer): Promise<void>;
  /** Starts writing `key` as a stream (large tarballs: publish, upstream fetches). */
  upload(key: string): Promise<BlobUpload>;
  /**
   * A stream of the bytes (of `range` only, when given: it must lie inside the blob), or
   * undefined when absent. `size` is the whole blob's.
   */
  get(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined>;
  stat(key: string): Promise<BlobInfo | undefined>;
  /**
   * Optional, for drivers that read a small blob cheaper than a stat and a stream: its size, and
   * the whole blob as `bytes` when it is at most `maxSize` bytes (else undefined: stream it with
   * get); undefined when absent. One call where a tarball download would stat, then read.
   */
  readSmall?(key: string, maxSize: number): Promise<SmallBlob | undefined>;
  delete(key: string): Promise<void>;
  list(): AsyncIterable<{ key: string } & BlobInfo>;
  /**
   * Optional, when the driver can list that cheaper: every key without its size and time, in
   * groups, each of keys of one directory (a package's, for the keys blobKeyFor makes).
   */
  listKeyGroups?(): AsyncIterable<string[]>;
  /**
   * Optional: removes what interrupted uploads left that is older than `olderThanMs` at `now`
   * (temporary files, incomplete multipart uploads); returns how many. Younger ones may be
   * uploads in progress, of this node or another.
   */
  cleanIncompleteUploads?(olderThanMs: number, now: Date): Promise<{ temporaryFiles: number; incompleteUploads: number }>;
  /** Readiness: resolves when the store can be reached (directory present, bucket answering). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Tells other processes that a package changed so that they drop cached documents.
 * The embedded default has one process: its bus only calls local subscribers.
 */
export interface InvalidationBus {
  /**
   * Tells every process (this one included) that a package changed. Never fails: when the
   * shared channel is down the change is still committed, and the others learn of it through
   * `subscribeReset` once the channel is back.
   */
  publish(tenant: TenantId, name: string): Promise<void>;
  subscribe(listener: (tenant: TenantId, name: string) => void): void;
  /**
   * Called when messages from other processes may have been missed (the channel dropped or
   * came back): drop everything cached.
   */
  subscribeReset(listener: () => void): void;
  /** False while messages from other processes cannot arrive: a cache must not serve from memory then. */
  readonly connected: boolean;
  /**
   * Where the store keeps a log of its package writes (PostgreSQL): the time, on
   * `performance.now()`'s clock, when the last complete read of that log started. Every write
   * committed before it has reached the listeners, a message the channel lost included, so a
   * cache entry of any age is as fresh as that read. Undefined without such a log, or before
   * its first read.
   */
  readonly heardUntil?: number | undefined;
  close(): Promise<void>;
}

/** Where a reader of a `PackageChangeFeed` stands: opaque to it, handed back on the next read. */
export interface ChangeFeedPosition {
  readonly feed: 'package-changes';
}

/**
 * The log of every package write of a store shared by several nodes, written by the database in
 * the write's own transaction (so no crash or lost message can leave a write out of it), read by
 * each node to hear the writes its bus did not tell it of.
 */
export interface PackageChangeFeed {
  /**
   * The packages written since `after` (a position an earlier call returned), each write
   * reported once, in any order; without `after`, none, and where to start. A write is reported
   * once it has committed, by the first call after that.
   */
  read(
    after: ChangeFeedPosition | undefined,
  ): Promise<{ changed: { tenant: TenantId; name: string }[]; next: ChangeFeedPosition }>;
  /** Forgets writes older than this many milliseconds; a reader that far behind must start again. */
  prune(olderThanMs: number): Promise<void>;
}

/** One result of a search, with what the response shows of it. */
/** A `/-/all` entry: the package name and its summary (latest version), serialized at index time. */
export interface PackageSummary {
  name: string;
  summaryJson: string;
}

/**
 * The search index of a metadata store. It is written by the store itself, in the transaction
 * that writes a package (so a publish is searchable at once); this port only reads it and
 * refreshes the time- and download-dependent scores. Matching and order follow
 * search/relevance.ts exactly.
 */
export interface SearchIndex {
  search(tenant: TenantId, query: SearchQuery, page: { size: number; from: number }): Promise<SearchPage>;
  /** Summaries sorted by name, the first `limit` after `after` (null: from the start). */
  listSummaries(tenant: TenantId, after: string | null, limit: number): Promise<PackageSummary[]>;
  /**
   * Every package of the tenant in one order, no query (the web interface's lists): `updated`,
   * newest publish first; `downloads`, most downloads in the last 30 days first, packages never
   * downloaded in that window left out. Ties by name.
   */
  ranked(tenant: TenantId, order: 'updated' | 'downloads', page: { size: number; from: number }): Promise<SearchPage>;
  /**
   * Recomputes download windows (last 7 and 30 UTC days up to `now`) and scores, of the named
   * packages or (null) of every package of the tenant. Writes only the packages whose windows or
   * scores change, and says whether there were any: if not, every search answers as before
   * (`resultsVersion` stays, and nobody needs telling).
   */
  refreshScores(tenant: TenantId, names: readonly string[] | null, now: Date): Promise<boolean>;
  /** The UTC day (`YYYY-MM-DD`) of the last refresh of every package of the tenant, or null. */
  scoresRefreshedOn(tenant: TenantId): Promise<string | null>;
  /**
   * A number that changes whenever a search could answer differently: a write of this process,
   * a commit of another process sharing the store, a refresh of scores. The search service
   * keeps responses while it stays the same. Absent when the index cannot tell cheaply (then no
   * response is kept).
   */
  resultsVersion?(): number;
}

/**
 * What the server sees of its shared connection to Redis (rate limits and the invalidation bus
 * use it through their own ports): whether commands can be sent now, and a readiness probe.
 */
export interface SharedConnection {
  readonly ready: boolean;
  /** A round trip. */
  ping(): Promise<void>;
}

/** Downloads of one version on one UTC day (`YYYY-MM-DD`). */
export interface DownloadIncrement {
  tenant: TenantId;
  name: string;
  version: string;
  day: string;
  count: number;
}

/** Download counts per tenant, package, version and UTC day. */
export interface DownloadCountStore {
  /** Adds the increments (one transaction); safe from several processes at once. */
  add(increments: readonly DownloadIncrement[]): Promise<void>;
  /** Downloads of a package per day, all versions summed, days without downloads left out, sorted. */
  perDay(tenant: TenantId, name: string, startDay: string, endDay: string): Promise<{ day: string; downloads: number }[]>;
  /** Every count of a tenant, one entry per package, day and version (copying a registry). */
  list(tenant: TenantId): Promise<DownloadIncrement[]>;
  /** Sets these counts to exactly the values given (copying a registry: re-running changes nothing). */
  replace(counts: readonly DownloadIncrement[]): Promise<void>;
}

/** What a registry remembers about one package it caches from an upstream registry. */
export interface UplinkCacheRecord {
  /** The uplink the cached document came from. */
  uplink: string;
  /** The upstream's ETag of the document last fetched (for If-None-Match); null when it sent none. */
  etag: string | null;
  /** ISO time of the last fetch or revalidation that reached the upstream. */
  fetchedAt: string;
}

/**
 * The freshness of packages cached from uplinks, kept beside the package documents (which hold
 * the cached documents themselves) so that every node sharing the store knows what any node
 * fetched, and when.
 */
export interface UplinkCacheStore {
  get(tenant: TenantId, name: string): Promise<UplinkCacheRecord | undefined>;
  /** Creates or replaces the record. */
  put(tenant: TenantId, name: string, record: UplinkCacheRecord): Promise<void>;
}

/** An upstream registry's answer (advisories, attestations) as the registry keeps it for later. */
export interface UpstreamAnswer {
  body: Buffer;
  /** Until when (ms since the epoch) it is served without asking the upstream (the uplink's maxAge). */
  freshUntil: number;
}

/** Answers not refreshed for this long are dropped (a stale one still serves while the upstream is down). */
export const UPSTREAM_ANSWER_KEEP_MS = 30 * 24 * 3600 * 1000;

/**
 * Answers of upstream registries, by opaque key (the caller hashes what names the question:
 * the uplink, its credentials, the package and version), shared by every node of a store that
 * is shared: what one node asked, all answer from, also while the upstream is down, and after a
 * restart. The upstream stays the source of truth; this only spares asking it again.
 */
export interface UpstreamAnswerStore {
  /** The answers held for these keys, fresh or not. */
  get(keys: readonly string[]): Promise<Map<string, UpstreamAnswer>>;
  /** Creates or replaces the answers, stored at `now` (ms); drops those stored before `now - UPSTREAM_ANSWER_KEEP_MS`. */
  put(answers: ReadonlyMap<string, UpstreamAnswer>, now: number): Promise<void>;
}

/** One signing key of a registry (the global one or a tenant): ECDSA P-256. */
export interface SigningKeyRecord {
  /** `SHA256:<base64 of the SHA-256 of the public key's DER SPKI>`, as npm's registry names its keys. */
  keyid: string;
  /** The private key, PKCS#8 PEM. Never leaves the server. */
  privateKey: string;
  /** The public key, base64 of its DER SPKI (npm's `key`). */
  publicKey: string;
  createdAt: string;
  /** When the key was rotated out: it verifies only signatures of versions published before. Null while it signs. */
  expiresAt: string | null;
}

/**
 * The registries' signing keys, in the shared metadata database so that every node signs with
 * the same key. A registry has at most one key in use (expiresAt null); rotated keys are kept
 * so their signatures stay verifiable.
 */
export interface SigningKeyStore {
  /** Every key of the registry, oldest first. */
  list(tenant: TenantId): Promise<SigningKeyRecord[]>;
  /**
   * Adds `key` as the registry's key in use unless it has one already (another node won the
   * race): false then, and the caller reads the winner. Nothing for a tenant that does not exist.
   */
  createIfNone(tenant: TenantId, key: SigningKeyRecord): Promise<boolean>;
  /**
   * Adds `key` as it is (a copy from another store, `pkg-registry migrate`): false when the
   * registry has a key of that id already, or a key in use and `key` is one too.
   */
  copy(tenant: TenantId, key: SigningKeyRecord): Promise<boolean>;
  /** Expires the key in use at `expiresAt` and puts `key` in its place, in one transaction. */
  rotate(tenant: TenantId, key: SigningKeyRecord, expiresAt: string): Promise<void>;
  /** Whether the one-time job has signed the versions of this registry published before it had a key. */
  backfilled(tenant: TenantId): Promise<boolean>;
  markBackfilled(tenant: TenantId, at: string): Promise<void>;
}

/** npm's severities, lowest first. */
export const ADVISORY_SEVERITIES = ['info', 'low', 'moderate', 'high', 'critical'] as const;
export type AdvisorySeverity = (typeof ADVISORY_SEVERITIES)[number];

/** A security advisory a package's owners published about some of its versions. */
export interface AdvisoryRecord {
  /** The package it is about. */
  name: string;
  /** Unique within the package: given by the publisher (a CVE, a GHSA id) or made by the registry. */
  id: string;
  severity: AdvisorySeverity;
  /** The affected versions, a semver range. */
  vulnerableVersions: string;
  /** The versions that fix it, a semver range (`<0.0.0` when none does yet). */
  patchedVersions: string;
  title: string;
  description: string;
  /** Where to read more; null for none. */
  url: string | null;
  publishedBy: string;
  publishedAt: string;
  updatedAt: string;
  /** When it was withdrawn (kept, so that its id is not reused); null while in force. */
  withdrawnAt: string | null;
}

/** Advisories, per registry and package, in the metadata database. */
export interface AdvisoryStore {
  /** The package's advisories, withdrawn ones too, oldest first. */
  list(tenant: TenantId, name: string): Promise<AdvisoryRecord[]>;
  /** The advisories in force of each of `names` that has any (the audit endpoints). */
  inForce(tenant: TenantId, names: readonly string[]): Promise<Map<string, AdvisoryRecord[]>>;
  /** Every advisory of the registry, withdrawn ones too, oldest first (copying a registry). */
  listAll(tenant: TenantId): Promise<AdvisoryRecord[]>;
  /** Creates or replaces the advisory of its (name, id), as given (times included); nothing for a tenant that does not exist. */
  put(tenant: TenantId, advisory: AdvisoryRecord): Promise<void>;
}

/** How a recorded change ended: done, refused (the caller's mistake or lack of right), or failed (ours). */
export type ChangeOutcome = 'success' | 'refused' | 'failed';

/**
 * One change the server made, or was asked to make and did not: who (user, token id), from
 * where, when, on what, and the outcome. Kept per registry; what a tenant did is never listed
 * in another's log.
 */
export interface AuditEntry {
  /** Given by the store, increasing in the order entries were appended. */
  id: string;
  at: string;
  /** `package.publish`, `dist-tag.set`, `token.revoke`, … (docs/security.md lists them). */
  action: string;
  outcome: ChangeOutcome;
  /** The user who asked, when known (a refused anonymous request has none). */
  user: string | null;
  /** The public id of the token used (a token list's key); null for a password or no credentials. */
  tokenId: string | null;
  /** The client address; null for the operator's command line and the server's own work. */
  address: string | null;
  /** How the change was asked for: over HTTP, by the operator's command line, by the server itself (retention). */
  via: 'http' | 'cli' | 'server';
  /** The package it is about, when it is about one. */
  package: string | null;
  /** What it was done to, in words (`com.acme.tool@1.2.0`, `token 0123abcd…`, `tenant acme`). */
  target: string;
  /** Why it was refused or failed; null on success. */
  reason: string | null;
  /** Small facts of the change (version, tag, owners added). */
  details: Record<string, unknown>;
}

/** Which entries a reader wants; every field narrows, none: the newest entries. */
export interface AuditQuery {
  user?: string;
  package?: string;
  /** An action (`owner.add`) or its group (`owner`). */
  action?: string;
  outcome?: ChangeOutcome;
  /** ISO times, inclusive. */
  since?: string;
  until?: string;
  /** Only entries older than this id (the next page). */
  before?: string;
  limit: number;
}

/** A webhook delivery made when a change is recorded (the outbox row). */
export interface NewWebhookDelivery {
  id: string;
  hook: string;
  event: string;
  /** The JSON body exactly as it will be signed and sent. */
  payload: string;
  createdAt: string;
  /** After this the delivery is given up (a day after it was made or redelivered). */
  giveUpAt: string;
}

/**
 * The audit log: every change of every registry, shared by every node. Appending an entry and
 * the webhook deliveries it causes is one transaction, so an event is either in both the log
 * and the outbox or in neither.
 */
export interface AuditLogStore {
  /** Appends the entry (its id is given by the store) and the deliveries; nothing for a tenant that does not exist. */
  append(tenant: TenantId, entry: Omit<AuditEntry, 'id'>, deliveries: readonly NewWebhookDelivery[]): Promise<void>;
  /** Entries of the registry matching the query, newest first. */
  query(tenant: TenantId, query: AuditQuery): Promise<AuditEntry[]>;
  /** Removes entries older than `before` in every registry, and finished deliveries made before it; returns the entries removed. */
  prune(before: string): Promise<number>;
  /**
   * Writes entries of another store as they were, ids and times kept (copying a registry: a
   * reader's paging cursor stays valid); an id the store holds already is skipped, so a re-run
   * adds only what is new. Later appends get ids above every copied one. Nothing for a tenant
   * that does not exist. Returns how many were written.
   */
  copyEntries(tenant: TenantId, entries: readonly AuditEntry[]): Promise<number>;
}

/** A secret a webhook's payloads are signed with; during a rotation the old one signs too, until it expires. */
export interface WebhookSecret {
  secret: string;
  createdAt: string;
  /** Null while it is the current secret. */
  expiresAt: string | null;
}

export interface WebhookRecord {
  id: string;
  /** The only address the sender ever posts to. */
  url: string;
  /** Events (`package.publish`) or groups of them (`package`), or `*` for every event. */
  events: string[];
  /** Newest first. */
  secrets: WebhookSecret[];
  createdAt: string;
  createdBy: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery extends NewWebhookDelivery {
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due (while pending). */
  nextAttemptAt: string;
  lastAttemptAt: string | null;
  /** The receiver's HTTP status of the last attempt; null when none answered. */
  lastStatus: number | null;
  /** Why the last attempt failed, in words; null when it succeeded or none was made. */
  lastError: string | null;
}

/** A delivery a node claimed for sending, with what it needs to send it. */
export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  tenant: TenantId;
  url: string;
  secrets: WebhookSecret[];
  /** Names this claim: only its holder can finish the delivery. */
  claim: string;
}

/** The result of one attempt, written by the node that claimed it. */
export interface DeliveryAttempt {
  at: string;
  status: WebhookDeliveryStatus;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
}

/** Webhook subscriptions and their outbox, in the shared metadata database. */
export interface WebhookStore {
  /** Adds the hook; false for a tenant that does not exist. */
  addWebhook(tenant: TenantId, hook: WebhookRecord): Promise<boolean>;
  listWebhooks(tenant: TenantId): Promise<WebhookRecord[]>;
  /** Removes the hook and its deliveries; false when there was none. */
  removeWebhook(tenant: TenantId, id: string): Promise<boolean>;
  /** Replaces the hook's secrets; false when there is no such hook. */
  setWebhookSecrets(tenant: TenantId, id: string, secrets: readonly WebhookSecret[]): Promise<boolean>;
  /**
   * Changes where the hook posts and what it is sent; false when there is no such hook. Pending
   * deliveries go to the new URL (a claim reads the hook's URL when it sends).
   */
  updateWebhook(tenant: TenantId, id: string, change: Pick<WebhookRecord, 'url' | 'events'>): Promise<boolean>;
  /** The hook's deliveries, newest first. */
  listDeliveries(tenant: TenantId, hook: string, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Claims up to `limit` pending deliveries due at `now`, of any registry, for `leaseMs`: no
   * other caller (node) claims them until the lease ends unfinished (its holder died).
   */
  claimDeliveries(now: string, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt of a claimed delivery; false when the claim is no longer held. */
  finishDelivery(id: string, claim: string, attempt: DeliveryAttempt): Promise<boolean>;
  /** Makes a delivery of the registry pending again, due now, for another day; false when there is none. */
  redeliver(tenant: TenantId, id: string, now: string, giveUpAt: string): Promise<boolean>;
  /**
   * Creates or replaces a delivery of the registry's hook as given, attempts and status kept,
   * unclaimed (copying a registry: a pending one is sent by the target). False when the registry
   * has no such hook.
   */
  putDelivery(tenant: TenantId, delivery: WebhookDelivery): Promise<boolean>;
}
