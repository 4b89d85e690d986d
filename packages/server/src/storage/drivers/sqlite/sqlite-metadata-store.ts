import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { blobKeysOfVersion } from '../../blob-keys.js';
import {
  GLOBAL_TENANT,
  TenantGoneError,
  type MetadataStore,
  type PackageHandle,
  type PackageMutation,
  type SessionRecord,
  type StoredPackage,
  type TenantId,
  type TenantRecord,
  type TenantSettings,
  type TokenRecord,
  type SecondFactor,
  type TokenScope,
  type TokenUse,
  type UserRecord,
} from '../../ports.js';
import { KeyedMutex } from '../../keyed-mutex.js';
import { packageHandle, type PackageRecords } from '../../package-handle.js';
import { FileChangeWatch } from './file-change-watch.js';
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

interface PackageRow {
  document: string;
  published_versions: string;
  unpublished: number;
  write_count: number;
}

const MAX_WRITE_ATTEMPTS = 20;

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
  /** Statements prepared once: preparing costs more than running most of them. */
  readonly #statements = new Map<string, Database.Statement>();
  /** Writes of users, tokens or tenants through this connection (see credentialsVersion). */
  #credentialWrites = 0;
  /** data_version moves when another connection commits: revocations anywhere are seen. */
  readonly credentialsVersionCoversOthers = true;
  readonly #otherWriters: FileChangeWatch;
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
    this.#hooks = hooks;
    this.#otherWriters = new FileChangeWatch(file);
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
    if (this.db.open) this.db.close();
  }

  async ping(): Promise<void> {
    this.#statement('SELECT 1').get();
  }

  async getTenant(name: TenantId): Promise<TenantRecord | undefined> {
    const row = this.#statement('SELECT name, incarnation, created_at, settings FROM tenants WHERE name = ?').get(name) as
      TenantRow | undefined;
    return row && toTenant(row);
  }

  async listTenants(): Promise<TenantRecord[]> {
    const rows = this.#statement(
      'SELECT name, incarnation, created_at, settings FROM tenants ORDER BY name',
    ).all() as TenantRow[];
    return rows.map(toTenant);
  }

  async createTenant(tenant: TenantRecord): Promise<boolean> {
    const info = this.#statement(
      'INSERT INTO tenants (name, incarnation, created_at, settings) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    ).run(tenant.name, tenant.incarnation, tenant.createdAt, JSON.stringify(tenant.settings));
    if (info.changes === 1) this.#credentialWrites++;
    return info.changes === 1;
  }

  async updateTenantSettings(name: TenantId, settings: TenantSettings): Promise<boolean> {
    const info = this.#statement('UPDATE tenants SET settings = ? WHERE name = ?').run(JSON.stringify(settings), name);
    this.#credentialWrites++;
    return info.changes === 1;
  }

  async deleteTenant(name: TenantId): Promise<boolean> {
    this.#credentialWrites++;
    const db = this.db;
    return db
      .transaction(() => {
        const info = this.#statement('DELETE FROM tenants WHERE name = ?').run(name);
        if (info.changes === 0) return false;
        for (const table of ['users', 'tokens', 'sessions', 'packages'])
          this.#statement(`DELETE FROM ${table} WHERE tenant = ?`).run(name);
        for (const hook of this.#hooks) hook.onTenantDelete?.(db, name);
        return true;
      })
      .immediate();
  }

  async getUser(tenant: TenantId, name: string): Promise<UserRecord | undefined> {
    const row = this.#statement(
      'SELECT name, email, password_hash, created_at, disabled, second_factor, admin FROM users WHERE tenant = ? AND name = ?',
    ).get(tenant, name) as UserRow | undefined;
    return row && toUser(row);
  }

  async createUser(tenant: TenantId, user: UserRecord): Promise<boolean> {
    return this.#inLiveTenant(tenant, () => {
      const info = this.#statement(
        'INSERT INTO users (tenant, name, email, password_hash, created_at, disabled, second_factor, admin) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ).run(
        tenant,
        user.name,
        user.email,
        user.passwordHash,
        user.createdAt,
        user.disabled ? 1 : 0,
        user.secondFactor ? JSON.stringify(user.secondFactor) : null,
        user.admin === true ? 1 : 0,
      );
      return info.changes === 1;
    });
  }

  async updateUser(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean> {
    this.#credentialWrites++;
    const columns: Record<string, string> = {
      email: 'email',
      passwordHash: 'password_hash',
      createdAt: 'created_at',
      disabled: 'disabled',
      secondFactor: 'second_factor',
      admin: 'admin',
    };
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      const column = columns[key];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = ?`);
      values.push(
        typeof value === 'boolean' ? (value ? 1 : 0) : key === 'secondFactor' && value !== null ? JSON.stringify(value) : value,
      );
    }
    if (sets.length === 0) return (await this.getUser(tenant, name)) !== undefined;
    const info = this.#statement(`UPDATE users SET ${sets.join(', ')} WHERE tenant = ? AND name = ?`).run(
      ...values,
      tenant,
      name,
    );
    return info.changes === 1;
  }

  async listUsers(tenant: TenantId): Promise<UserRecord[]> {
    const rows = this.#statement(
      'SELECT name, email, password_hash, created_at, disabled, second_factor, admin FROM users WHERE tenant = ? ORDER BY name',
    ).all(tenant) as UserRow[];
    return rows.map(toUser);
  }

  async deleteUser(tenant: TenantId, name: string): Promise<boolean> {
    this.#credentialWrites++;
    return this.db
      .transaction(() => {
        const info = this.#statement('DELETE FROM users WHERE tenant = ? AND name = ?').run(tenant, name);
        if (info.changes === 0) return false;
        this.#statement('DELETE FROM tokens WHERE tenant = ? AND user = ?').run(tenant, name);
        this.#statement('DELETE FROM sessions WHERE tenant = ? AND user = ?').run(tenant, name);
        return true;
      })
      .immediate();
  }

  async createToken(tenant: TenantId, token: TokenRecord): Promise<void> {
    this.#inLiveTenant(tenant, () =>
      this.#statement(
        'INSERT INTO tokens (tenant, hash, user, created_at, expires_at, readonly, prefix, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        tenant,
        token.hash,
        token.user,
        token.createdAt,
        token.expiresAt,
        token.readonly ? 1 : 0,
        token.prefix ?? null,
        token.scope ? JSON.stringify(token.scope) : null,
      ),
    );
  }

  async getToken(tenant: TenantId, hash: string): Promise<TokenRecord | undefined> {
    const row = this.#statement(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = ? AND hash = ?`).get(tenant, hash) as
      TokenRow | undefined;
    return row && toToken(row);
  }

  async listTokens(tenant: TenantId): Promise<TokenRecord[]> {
    const rows = this.#statement(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = ? ORDER BY hash`).all(tenant) as TokenRow[];
    return rows.map(toToken);
  }

  async deleteToken(tenant: TenantId, hash: string): Promise<boolean> {
    this.#credentialWrites++;
    return this.#statement('DELETE FROM tokens WHERE tenant = ? AND hash = ?').run(tenant, hash).changes === 1;
  }

  async deleteUserTokens(tenant: TenantId, user: string): Promise<number> {
    this.#credentialWrites++;
    return this.#statement('DELETE FROM tokens WHERE tenant = ? AND user = ?').run(tenant, user).changes;
  }

  /**
   * Local credential writes plus SQLite's data_version, which changes when another connection
   * (the admin command line, another process on the same file) commits: a revocation anywhere
   * is seen by the next request. data_version is read again only after the database's files
   * changed (FileChangeWatch).
   */
  credentialsVersion(): number {
    if (this.#otherWriters.takeChanged()) this.#dataVersion = this.#statement('PRAGMA data_version').pluck().get() as number;
    return this.#credentialWrites + this.#dataVersion;
  }

  async listUserTokens(tenant: TenantId, user: string): Promise<TokenRecord[]> {
    const rows = this.#statement(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = ? AND user = ? ORDER BY created_at DESC, hash`,
    ).all(tenant, user) as TokenRow[];
    return rows.map(toToken);
  }

  async recordTokenUses(tenant: TenantId, uses: TokenUse[]): Promise<void> {
    const update = this.#statement('UPDATE tokens SET last_used_at = ?, last_address = ? WHERE tenant = ? AND hash = ?');
    this.db.transaction(() => {
      for (const use of uses) update.run(use.at, use.address, tenant, use.hash);
    })();
  }

  async createSession(tenant: TenantId, session: SessionRecord): Promise<void> {
    this.#inLiveTenant(tenant, () =>
      this.#statement(
        'INSERT INTO sessions (tenant, hash, kind, user, data, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(tenant, session.hash, session.kind, session.user, JSON.stringify(session.data), session.createdAt, session.expiresAt),
    );
  }

  async getSession(tenant: TenantId, hash: string, now: string): Promise<SessionRecord | undefined> {
    const row = this.#statement(
      'SELECT hash, kind, user, data, created_at, expires_at FROM sessions WHERE tenant = ? AND hash = ? AND expires_at > ?',
    ).get(tenant, hash, now) as SessionRow | undefined;
    return (
      row && {
        hash: row.hash,
        kind: row.kind,
        user: row.user,
        data: JSON.parse(row.data) as Record<string, unknown>,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async claimSession(tenant: TenantId, hash: string, user: string, now: string): Promise<boolean> {
    const info = this.#statement(
      'UPDATE sessions SET user = ? WHERE tenant = ? AND hash = ? AND user IS NULL AND expires_at > ?',
    ).run(user, tenant, hash, now);
    return info.changes === 1;
  }

  async deleteSession(tenant: TenantId, hash: string): Promise<boolean> {
    return this.#statement('DELETE FROM sessions WHERE tenant = ? AND hash = ?').run(tenant, hash).changes === 1;
  }

  async deleteExpiredSessions(now: string): Promise<number> {
    return this.#statement('DELETE FROM sessions WHERE expires_at <= ?').run(now).changes;
  }

  package(tenant: TenantId, name: string): PackageHandle {
    return packageHandle(this, tenant, name);
  }

  async getPackage(tenant: TenantId, name: string): Promise<StoredPackage | undefined> {
    const row = this.#readPackageRow(tenant, name);
    return row && toStoredPackage(row);
  }

  async versionsOf(tenant: TenantId, name: string): Promise<string[]> {
    return this.#statement(
      "SELECT version.key FROM packages, json_each(packages.document, '$.versions') AS version WHERE tenant = ? AND name = ?",
    )
      .pluck()
      .all(tenant, name) as string[];
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
            this.#requireLiveTenant(tenant);
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
              (row?.write_count ?? 0) + 1,
              new Date().toISOString(),
            );
            for (const hook of this.#hooks) hook.onWrite(this.db, tenant, name, next);
            return true;
          })
          .immediate();
        if (committed) return result;
      }
      throw new Error(`package ${name}: too many concurrent writers`);
    });
  }

  async listPackageNames(tenant: TenantId, options: { includeUnpublished?: boolean } = {}): Promise<string[]> {
    const filter = options.includeUnpublished ? '' : ' AND unpublished = 0';
    const rows = this.#statement(`SELECT name FROM packages WHERE tenant = ?${filter} ORDER BY name`).all(tenant) as {
      name: string;
    }[];
    return rows.map((row) => row.name);
  }

  async referencedBlobKeys(): Promise<Set<string>> {
    const keys = new Set<string>();
    const rows = this.#statement('SELECT tenant, name, document FROM packages').iterate() as IterableIterator<{
      tenant: string;
      name: string;
      document: string;
    }>;
    for (const row of rows) {
      const doc = JSON.parse(row.document) as { versions?: Record<string, unknown> };
      for (const version of Object.keys(doc.versions ?? {})) {
        for (const key of blobKeysOfVersion(row.tenant, row.name, version)) keys.add(key);
      }
    }
    return keys;
  }

  #statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs a write in an IMMEDIATE transaction that first checks the tenant still exists: the
   * tenant's delete is one such transaction too, so a write lands before it (and is deleted
   * with the tenant) or fails with TenantGoneError after it.
   */
  #inLiveTenant<T>(tenant: TenantId, write: () => T): T {
    if (tenant === GLOBAL_TENANT) return write();
    return this.db
      .transaction(() => {
        this.#requireLiveTenant(tenant);
        return write();
      })
      .immediate();
  }

  #requireLiveTenant(tenant: TenantId): void {
    if (tenant === GLOBAL_TENANT) return;
    if (this.#statement('SELECT 1 FROM tenants WHERE name = ?').get(tenant) === undefined) throw new TenantGoneError(tenant);
  }

  #readPackageRow(tenant: TenantId, name: string): PackageRow | undefined {
    return this.#statement(
      'SELECT document, published_versions, unpublished, write_count FROM packages WHERE tenant = ? AND name = ?',
    ).get(tenant, name) as PackageRow | undefined;
  }
}

const TOKEN_COLUMNS = 'hash, user, created_at, expires_at, readonly, prefix, scope, last_used_at, last_address';

interface TokenRow {
  hash: string;
  user: string;
  created_at: string;
  expires_at: string | null;
  readonly: number;
  prefix: string | null;
  scope: string | null;
  last_used_at: string | null;
  last_address: string | null;
}

function toToken(row: TokenRow): TokenRecord {
  return {
    hash: row.hash,
    user: row.user,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    readonly: row.readonly === 1,
    ...(row.prefix !== null ? { prefix: row.prefix } : {}),
    ...(row.scope !== null ? { scope: JSON.parse(row.scope) as TokenScope } : {}),
    ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
    ...(row.last_address !== null ? { lastAddress: row.last_address } : {}),
  };
}

interface SessionRow {
  hash: string;
  kind: string;
  user: string | null;
  data: string;
  created_at: string;
  expires_at: string;
}

interface UserRow {
  name: string;
  email: string;
  password_hash: string;
  created_at: string;
  disabled: number;
  second_factor: string | null;
  admin: number;
}

function toUser(row: UserRow): UserRecord {
  return {
    name: row.name,
    email: row.email,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    disabled: row.disabled === 1,
    ...(row.second_factor !== null ? { secondFactor: JSON.parse(row.second_factor) as SecondFactor } : {}),
    ...(row.admin === 1 ? { admin: true } : {}),
  };
}

/** A `packages` row as the store returns it (for migrations that re-derive from documents). */
export function toStoredPackage(row: Pick<PackageRow, 'document' | 'published_versions' | 'unpublished'>): StoredPackage {
  return {
    document: JSON.parse(row.document) as StoredPackage['document'],
    publishedVersions: JSON.parse(row.published_versions) as string[],
    unpublished: row.unpublished === 1,
  };
}

interface TenantRow {
  name: string;
  incarnation: string;
  created_at: string;
  settings: string;
}

function toTenant(row: TenantRow): TenantRecord {
  return {
    name: row.name,
    incarnation: row.incarnation,
    createdAt: row.created_at,
    settings: JSON.parse(row.settings) as TenantSettings,
  };
}
