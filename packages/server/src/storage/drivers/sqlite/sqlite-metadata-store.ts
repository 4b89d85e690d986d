import { BACKSTOP_CHECKPOINT_PAGES, LOG_SIZE_LIMIT, WalCheckpointer } from './wal-checkpointer.js';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {
  AccountStores,
  MetadataStore,
  PackageHandle,
  PackageMutation,
  PackageWrite,
  StoredPackage,
  TenantId,
} from '../../ports.js';
import { KeyedMutex } from '../../keyed-mutex.js';
import { distinctNames, groupVersions, packageHandle, type PackageRecords } from '../../package-handle.js';
import { FileChangeWatch } from './file-change-watch.js';
import { SqliteConnection } from './sqlite-connection.js';
import { SqliteSessions } from './sqlite-sessions.js';
import { SqliteTenants } from './sqlite-tenants.js';
import { SqliteTokens } from './sqlite-tokens.js';
import { SqliteUsers } from './sqlite-users.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { registryRelease } from '../../../release.js';
import { assertDataNotNewer, type MigrationLog } from '../../schema-history.js';

type Db = Database.Database;

/**
 * A schema change (SQL), or a change of derived data that SQL cannot compute (a function,
 * run on the store's connection inside the migration's transaction).
 */
export type SqliteMigration = string | ((db: Db) => void);

/** Hooks run inside the write transaction of a package (e.g. the search index). */
export interface SqlitePackageWriteHook {
  /** Names the hook's migration scope; keep it stable (hooks without one are scoped by position). */
  name?: string;
  migrations?: readonly SqliteMigration[];
  onWrite(db: Db, tenant: TenantId, name: string, pkg: StoredPackage): void;
  onTenantDelete?(db: Db, tenant: TenantId): void;
}

/**
 * The hook of a store that keeps its own table of per-tenant rows (download counts, the uplink
 * cache): it creates the table, and deletes a tenant's rows with the tenant; package writes do
 * not touch it.
 */
export function tenantTableHook(name: string, migrations: readonly SqliteMigration[], table: string): SqlitePackageWriteHook {
  return {
    name,
    migrations,
    onWrite: () => undefined,
    onTenantDelete: (db, tenant) => {
      db.prepare(`DELETE FROM ${table} WHERE tenant = ?`).run(tenant);
    },
  };
}

export interface PackageRow {
  document: string;
  published_versions: string;
  unpublished: number;
  write_count: number;
}

const MAX_WRITE_ATTEMPTS = 20;
/**
 * Names per statement of versionsOfPackages: few enough that a request arriving meanwhile waits
 * about as long as behind one slice of FsBlobStore.listKeyGroups (bench/README.md, "Stop 37").
 */
const VERSIONS_STATEMENT_NAMES = 32;

export interface SqliteMetadataStoreOptions {
  /** Bytes of SQLite's page cache (better-sqlite3's own default is 16 MB). */
  cacheBytes?: number;
}

/**
 * The embedded default's metadata store: one SQLite file in WAL mode. Writes of one package are
 * serialized in-process by a mutex and across processes by a compare-and-swap on `write_count`
 * inside an IMMEDIATE transaction, so concurrent publishes never lose an update.
 */
export class SqliteMetadataStore implements MetadataStore, PackageRecords {
  readonly db: Db;
  readonly #mutex = new KeyedMutex();
  readonly #hooks: SqlitePackageWriteHook[];
  readonly #connection: SqliteConnection;
  readonly accounts: AccountStores;
  readonly #otherWriters: FileChangeWatch;
  /** Checkpoints the log off the event loop (absent for an in-memory database). */
  readonly checkpointer: WalCheckpointer | undefined;
  #dataVersion = 0;

  constructor(file: string, hooks: SqlitePackageWriteHook[] = [], options: SqliteMetadataStoreOptions = {}) {
    if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    // better-sqlite3 builds SQLite with a 16 MB page cache; a negative size is in KiB.
    if (options.cacheBytes !== undefined) this.db.pragma(`cache_size = -${Math.floor(options.cacheBytes / 1024)}`);
    if (file !== ':memory:') {
      this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
      this.db.pragma(`journal_size_limit = ${LOG_SIZE_LIMIT}`);
      this.checkpointer = new WalCheckpointer(file);
    }
    this.#hooks = hooks;
    this.#otherWriters = new FileChangeWatch(file);
    const connection = new SqliteConnection(this.db);
    this.#connection = connection;
    this.accounts = {
      tenants: new SqliteTenants(connection, (tenant) => this.#deleteTenantRecords(tenant)),
      users: new SqliteUsers(connection),
      tokens: new SqliteTokens(connection),
      sessions: new SqliteSessions(connection),
      credentialsVersion: () => this.#credentialsVersion(),
      // data_version moves when another connection commits: revocations anywhere are seen.
      credentialsVersionCoversOthers: true,
    };
  }

  /**
   * Applies what is missing, each migration in its own transaction, reporting each as it runs;
   * refuses data a newer release has migrated. Which release applied each migration is kept
   * beside schema_migrations, so an older binary can name the release the data needs.
   */
  async migrate(log?: MigrationLog): Promise<void> {
    const db = this.db;
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (scope TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (scope, version))',
    );
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_releases (scope TEXT NOT NULL, version INTEGER NOT NULL, release TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (scope, version))',
    );
    const scopes: [string, readonly SqliteMigration[]][] = [['core', SQLITE_MIGRATIONS]];
    this.#hooks.forEach((hook, i) => {
      if (hook.migrations) scopes.push([hook.name ?? `hook${i}`, hook.migrations]);
    });
    const release = registryRelease();
    const found = db
      .prepare(
        'SELECT m.scope, m.version, r.release FROM schema_migrations m LEFT JOIN schema_releases r ON r.scope = m.scope AND r.version = m.version',
      )
      .all() as { scope: string; version: number; release: string | null }[];
    assertDataNotNewer(
      found.map((row) => ({ scope: row.scope, version: row.version, release: row.release ?? undefined })),
      scopes.map(([scope, migrations]) => [scope, migrations.length] as const),
      release,
      `the database ${this.db.name}`,
    );
    const applied = db.prepare('SELECT 1 FROM schema_migrations WHERE scope = ? AND version = ?');
    const record = db.prepare('INSERT INTO schema_migrations (scope, version) VALUES (?, ?)');
    const recordRelease = db.prepare(
      'INSERT OR REPLACE INTO schema_releases (scope, version, release, applied_at) VALUES (?, ?, ?, ?)',
    );
    for (const [scope, migrations] of scopes) {
      migrations.forEach((migration, version) => {
        db.transaction(() => {
          if (applied.get(scope, version)) return;
          log?.info(
            { scope, migration: version + 1, of: migrations.length },
            `applying database migration ${scope} ${version + 1}`,
          );
          if (typeof migration === 'string') db.exec(migration);
          else migration(db);
          record.run(scope, version);
          recordRelease.run(scope, version, release, new Date().toISOString());
        }).immediate();
      });
    }
  }

  async close(): Promise<void> {
    this.#otherWriters.close();
    // The worker's connection first: the last one to close checkpoints the log and removes it.
    await this.checkpointer?.close();
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<void> {
    this.#statement('SELECT 1').get();
  }

  /** Everything of a deleted tenant but its row, inside the transaction that deletes the row. */
  #deleteTenantRecords(name: TenantId): void {
    for (const table of ['users', 'tokens', 'sessions', 'packages'])
      this.#statement(`DELETE FROM ${table} WHERE tenant = ?`).run(name);
    for (const hook of this.#hooks) hook.onTenantDelete?.(this.db, name);
  }

  /**
   * Local credential writes plus SQLite's data_version, which changes when another connection
   * (the admin command line, another process on the same file) commits: a revocation anywhere
   * is seen by the next request. data_version is read again only after the database's files
   * changed (FileChangeWatch).
   */
  #credentialsVersion(): number {
    if (this.#otherWriters.takeChanged()) this.#dataVersion = this.#statement('PRAGMA data_version').pluck().get() as number;
    return this.#connection.credentialWrites + this.#dataVersion;
  }

  package(tenant: TenantId, name: string): PackageHandle {
    return packageHandle(this, tenant, name);
  }

  async getPackage(tenant: TenantId, name: string): Promise<StoredPackage | undefined> {
    const row = this.#readPackageRow(tenant, name);
    return row && packageOfRow(row);
  }

  /**
   * In statements of VERSIONS_STATEMENT_NAMES names (each name list one JSON parameter), the event
   * loop let run between them: a statement holds it while it runs, and the sweep of orphan
   * tarballs asks for every package while the server serves.
   */
  async versionsOfPackages(tenant: TenantId, names: readonly string[]): Promise<Map<string, string[]>> {
    const rows: { name: string; version: string }[] = [];
    for (let from = 0; from < names.length; from += VERSIONS_STATEMENT_NAMES) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      const some = names.slice(from, from + VERSIONS_STATEMENT_NAMES);
      rows.push(
        ...(this.#statement(
          `SELECT packages.name, version.key AS version FROM packages, json_each(packages.document, '$.versions') AS version
           WHERE tenant = ? AND name IN (SELECT value FROM json_each(?))`,
        ).all(tenant, JSON.stringify(some)) as { name: string; version: string }[]),
      );
    }
    return groupVersions(rows);
  }

  async updatePackage<T>(
    tenant: TenantId,
    name: string,
    mutate: (current: StoredPackage | undefined) => Promise<PackageMutation<T>> | PackageMutation<T>,
  ): Promise<T> {
    return this.#mutex.run(`${tenant}\0${name}`, async () => {
      for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
        const row = this.#readPackageRow(tenant, name);
        const { next, result } = await mutate(row && toStoredPackage(row));
        if (next === null) return result;
        const committed = this.db
          .transaction(() => {
            // Another process (sharing this file) may have written since we read.
            const now = this.#statement('SELECT write_count FROM packages WHERE tenant = ? AND name = ?')
              .pluck()
              .get(tenant, name) as number | undefined;
            if ((now ?? 0) !== (row?.write_count ?? 0)) return false;
            this.#connection.requireLiveTenant(tenant);
            this.#write(tenant, name, next, (row?.write_count ?? 0) + 1);
            return true;
          })
          .immediate();
        if (committed) return result;
      }
      throw new Error(`package ${name}: too many concurrent writers`);
    });
  }

  async readPackages(tenant: TenantId, names: readonly string[]): Promise<Map<string, StoredPackage>> {
    const rows = this.#statement(
      `SELECT name, document, published_versions, unpublished, write_count FROM packages
       WHERE tenant = ? AND name IN (SELECT value FROM json_each(?))`,
    ).all(tenant, JSON.stringify(names)) as (PackageRow & { name: string })[];
    return new Map(rows.map((row) => [row.name, packageOfRow(row)]));
  }

  async writePackages(tenant: TenantId, writes: readonly PackageWrite[]): Promise<void> {
    if (writes.length === 0) return;
    distinctNames(writes);
    // One transaction of synchronous statements: no update of this process runs in between, and
    // an update that read before it sees the changed write_count and reads again.
    this.db
      .transaction(() => {
        this.#connection.requireLiveTenant(tenant);
        const count = this.#statement('SELECT write_count FROM packages WHERE tenant = ? AND name = ?').pluck();
        for (const { name, next } of writes) {
          const now = count.get(tenant, name) as number | undefined;
          this.#write(tenant, name, next, (now ?? 0) + 1);
        }
      })
      .immediate();
  }

  /** A package's row and its hooks' rows, inside the caller's transaction. */
  #write(tenant: TenantId, name: string, next: StoredPackage, writeCount: number): void {
    this.#statement(
      `INSERT INTO packages (tenant, name, document, published_versions, unpublished, write_count, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant, name) DO UPDATE SET document = excluded.document,
           published_versions = excluded.published_versions, unpublished = excluded.unpublished,
           write_count = excluded.write_count, updated_at = excluded.updated_at`,
    ).run(
      tenant,
      name,
      JSON.stringify(next.document),
      JSON.stringify(next.publishedVersions),
      next.unpublished ? 1 : 0,
      writeCount,
      new Date().toISOString(),
    );
    for (const hook of this.#hooks) hook.onWrite(this.db, tenant, name, next);
  }

  async listPackageNames(tenant: TenantId, options: { includeUnpublished?: boolean } = {}): Promise<string[]> {
    const filter = options.includeUnpublished ? '' : ' AND unpublished = 0';
    const rows = this.#statement(`SELECT name FROM packages WHERE tenant = ?${filter} ORDER BY name`).all(tenant) as {
      name: string;
    }[];
    return rows.map((row) => row.name);
  }

  #statement(sql: string): Database.Statement {
    return this.#connection.statement(sql);
  }

  #readPackageRow(tenant: TenantId, name: string): PackageRow | undefined {
    return this.#statement(
      'SELECT document, published_versions, unpublished, write_count FROM packages WHERE tenant = ? AND name = ?',
    ).get(tenant, name) as PackageRow | undefined;
  }
}

/** A `packages` row as a read answers it: with the revision a render made from it is kept against. */
export function packageOfRow(row: PackageRow): StoredPackage {
  return { ...toStoredPackage(row), documentBytes: row.document.length, revision: row.write_count };
}

/** A `packages` row as the store returns it (for migrations that re-derive from documents). */
export function toStoredPackage(row: Pick<PackageRow, 'document' | 'published_versions' | 'unpublished'>): StoredPackage {
  return {
    document: JSON.parse(row.document) as StoredPackage['document'],
    publishedVersions: JSON.parse(row.published_versions) as string[],
    unpublished: row.unpublished === 1,
  };
}
