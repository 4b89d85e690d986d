import type pg from 'pg';
import { blobKeysOfVersion } from '../../blob-keys.js';
import { KeyedMutex } from '../../keyed-mutex.js';
import { packageHandle, type PackageRecords } from '../../package-handle.js';
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
import { LOCK_NAMESPACE, POSTGRES_MIGRATIONS, applyMigrations, type PostgresMigration } from './migrations.js';
import { createPool, createSnapshotPool, inTransaction, withSession, type PgLocation } from './pg-connection.js';
import type { MigrationLog } from '../../schema-history.js';

/** Work run inside the write transaction of a package (e.g. the search index), on its session. */
export interface PostgresPackageWriteHook {
  /** Names the hook's migrations in schema_migrations. */
  name: string;
  migrations?: readonly PostgresMigration[];
  onWrite(client: pg.ClientBase, tenant: TenantId, name: string, pkg: StoredPackage): Promise<void>;
  onTenantDelete?(client: pg.ClientBase, tenant: TenantId): Promise<void>;
}

/**
 * The hook of a store that keeps its own table of per-tenant rows (download counts, the uplink
 * cache): it creates the table, and deletes a tenant's rows with the tenant; package writes do
 * not touch it.
 */
export function tenantTableHook(name: string, migrations: readonly PostgresMigration[], table: string): PostgresPackageWriteHook {
  return {
    name,
    migrations,
    onWrite: async () => undefined,
    onTenantDelete: async (client, tenant) => {
      await client.query(`DELETE FROM ${table} WHERE tenant = $1`, [tenant]);
    },
  };
}

interface PackageRow {
  document: StoredPackage['document'];
  published_versions: string[];
  unpublished: boolean;
  write_count: string;
}

type Mutate<T> = (current: StoredPackage | undefined) => Promise<PackageMutation<T>> | PackageMutation<T>;

/**
 * Metadata in PostgreSQL, shared by any number of server processes.
 *
 * A package write is one transaction holding a per-package advisory lock (a row lock cannot
 * cover a first publish, whose row does not exist yet): read, mutate, write, commit. So
 * publishes of one package on several nodes run one after the other and none is lost, and the
 * mutation may write the tarball to the blob store before the commit, knowing no other writer
 * of that package runs meanwhile. Writes take their sessions from a pool of their own, so slow
 * publishes (a large upload inside the transaction) never starve reads; within one process,
 * writers of one package queue on a mutex and hold at most one session.
 */
export class PostgresMetadataStore implements MetadataStore, PackageRecords {
  readonly pool: pg.Pool;
  readonly location: PgLocation;
  readonly #writePool: pg.Pool;
  readonly #mutex = new KeyedMutex();
  readonly #hooks: PostgresPackageWriteHook[];
  /** Writes of users, tokens or tenants through this store object (see credentialsVersion). */
  #credentialWrites = 0;
  /** Only this process's writes: other nodes' revocations are seen when the cache rechecks. */
  readonly credentialsVersionCoversOthers = false;

  /** `snapshot`: every read sees one consistent snapshot and nothing can be written (a backup's source). */
  constructor(location: PgLocation, hooks: PostgresPackageWriteHook[] = [], options: { snapshot?: boolean } = {}) {
    this.location = location;
    this.pool = options.snapshot ? createSnapshotPool(location) : createPool(location);
    this.#writePool = createPool(location, Math.max(2, Math.ceil(location.poolSize / 2)));
    // An idle session dropped by the server must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
    this.#writePool.on('error', () => undefined);
    this.#hooks = hooks;
  }

  async migrate(log?: MigrationLog): Promise<void> {
    const scopes: [string, readonly PostgresMigration[]][] = [['core', POSTGRES_MIGRATIONS]];
    for (const hook of this.#hooks) if (hook.migrations) scopes.push([hook.name, hook.migrations]);
    await withSession(this.pool, (client) => applyMigrations(client, this.location.schema, scopes, log));
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.#writePool.end()]);
  }

  /** Readiness: a round trip to the database. */
  async afterBulkImport(): Promise<void> {
    // Until autovacuum runs, PostgreSQL has no statistics of the new rows: without them it may
    // scan instead of using the search indexes.
    await this.pool.query('ANALYZE packages, search_packages, download_counts');
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async getTenant(name: TenantId): Promise<TenantRecord | undefined> {
    const { rows } = await this.pool.query<TenantRow>(
      'SELECT name, incarnation, created_at, settings FROM tenants WHERE name = $1',
      [name],
    );
    return rows[0] && toTenant(rows[0]);
  }

  async listTenants(): Promise<TenantRecord[]> {
    const { rows } = await this.pool.query<TenantRow>(
      'SELECT name, incarnation, created_at, settings FROM tenants ORDER BY name COLLATE "C"',
    );
    return rows.map(toTenant);
  }

  async createTenant(tenant: TenantRecord): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'INSERT INTO tenants (name, incarnation, created_at, settings) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [tenant.name, tenant.incarnation, tenant.createdAt, JSON.stringify(tenant.settings)],
    );
    this.#credentialWrites++;
    return rowCount === 1;
  }

  async updateTenantSettings(name: TenantId, settings: TenantSettings): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE tenants SET settings = $1 WHERE name = $2', [
      JSON.stringify(settings),
      name,
    ]);
    this.#credentialWrites++;
    return rowCount === 1;
  }

  async deleteTenant(name: TenantId): Promise<boolean> {
    try {
      return await this.#deleteTenant(name);
    } finally {
      this.#credentialWrites++;
    }
  }

  /** Changes after each write of users, tokens or tenants made through this store object. */
  credentialsVersion(): number {
    return this.#credentialWrites;
  }

  async #deleteTenant(name: TenantId): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query('DELETE FROM tenants WHERE name = $1', [name]);
      if (rowCount === 0) return false;
      for (const table of ['users', 'tokens', 'sessions', 'packages']) {
        await client.query(`DELETE FROM ${table} WHERE tenant = $1`, [name]);
      }
      for (const hook of this.#hooks) await hook.onTenantDelete?.(client, name);
      return true;
    });
  }

  async getUser(tenant: TenantId, name: string): Promise<UserRecord | undefined> {
    const { rows } = await this.pool.query<UserRow>(
      'SELECT name, email, password_hash, created_at, disabled, second_factor, admin FROM users WHERE tenant = $1 AND name = $2',
      [tenant, name],
    );
    return rows[0] && toUser(rows[0]);
  }

  async createUser(tenant: TenantId, user: UserRecord): Promise<boolean> {
    const { rowCount } = await this.#inLiveTenant(tenant, (db) =>
      db.query(
        `INSERT INTO users (tenant, name, email, password_hash, created_at, disabled, second_factor, admin)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [
          tenant,
          user.name,
          user.email,
          user.passwordHash,
          user.createdAt,
          user.disabled,
          user.secondFactor ? JSON.stringify(user.secondFactor) : null,
          user.admin === true,
        ],
      ),
    );
    return rowCount === 1;
  }

  async updateUser(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean> {
    try {
      return await this.#updateUser(tenant, name, patch);
    } finally {
      this.#credentialWrites++;
    }
  }

  async #updateUser(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean> {
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
      values.push(key === 'secondFactor' && value !== null ? JSON.stringify(value) : value);
      sets.push(`${column} = $${values.length}`);
    }
    if (sets.length === 0) return (await this.getUser(tenant, name)) !== undefined;
    values.push(tenant, name);
    const { rowCount } = await this.pool.query(
      `UPDATE users SET ${sets.join(', ')} WHERE tenant = $${values.length - 1} AND name = $${values.length}`,
      values,
    );
    return rowCount === 1;
  }

  async listUsers(tenant: TenantId): Promise<UserRecord[]> {
    const { rows } = await this.pool.query<UserRow>(
      'SELECT name, email, password_hash, created_at, disabled, second_factor, admin FROM users WHERE tenant = $1 ORDER BY name COLLATE "C"',
      [tenant],
    );
    return rows.map(toUser);
  }

  async deleteUser(tenant: TenantId, name: string): Promise<boolean> {
    try {
      return await inTransaction(this.pool, async (client) => {
        const { rowCount } = await client.query('DELETE FROM users WHERE tenant = $1 AND name = $2', [tenant, name]);
        if (rowCount === 0) return false;
        await client.query('DELETE FROM tokens WHERE tenant = $1 AND user_name = $2', [tenant, name]);
        await client.query('DELETE FROM sessions WHERE tenant = $1 AND user_name = $2', [tenant, name]);
        return true;
      });
    } finally {
      this.#credentialWrites++;
    }
  }

  async createToken(tenant: TenantId, token: TokenRecord): Promise<void> {
    await this.#inLiveTenant(tenant, (db) =>
      db.query(
        'INSERT INTO tokens (tenant, hash, user_name, created_at, expires_at, readonly, prefix, scope) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [
          tenant,
          token.hash,
          token.user,
          token.createdAt,
          token.expiresAt,
          token.readonly,
          token.prefix ?? null,
          token.scope ? JSON.stringify(token.scope) : null,
        ],
      ),
    );
  }

  async getToken(tenant: TenantId, hash: string): Promise<TokenRecord | undefined> {
    const { rows } = await this.pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = $1 AND hash = $2`, [
      tenant,
      hash,
    ]);
    return rows[0] && toToken(rows[0]);
  }

  async listTokens(tenant: TenantId): Promise<TokenRecord[]> {
    const { rows } = await this.pool.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = $1 ORDER BY hash COLLATE "C"`,
      [tenant],
    );
    return rows.map(toToken);
  }

  async listUserTokens(tenant: TenantId, user: string): Promise<TokenRecord[]> {
    const { rows } = await this.pool.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = $1 AND user_name = $2
       ORDER BY created_at COLLATE "C" DESC, hash COLLATE "C"`,
      [tenant, user],
    );
    return rows.map(toToken);
  }
  async recordTokenUses(tenant: TenantId, uses: TokenUse[]): Promise<void> {
    if (uses.length === 0) return;
    // One statement per batch; a hash named twice would update its row with either use, so
    // callers send each token once.
    await this.pool.query(
      `UPDATE tokens AS t SET last_used_at = u.at, last_address = u.address
         FROM unnest($2::text[], $3::text[], $4::text[]) AS u(hash, at, address)
        WHERE t.tenant = $1 AND t.hash = u.hash`,
      [tenant, uses.map((use) => use.hash), uses.map((use) => use.at), uses.map((use) => use.address)],
    );
  }

  async deleteToken(tenant: TenantId, hash: string): Promise<boolean> {
    try {
      return await this.#deleteToken(tenant, hash);
    } finally {
      this.#credentialWrites++;
    }
  }

  async #deleteToken(tenant: TenantId, hash: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM tokens WHERE tenant = $1 AND hash = $2', [tenant, hash]);
    return rowCount === 1;
  }

  async deleteUserTokens(tenant: TenantId, user: string): Promise<number> {
    try {
      return await this.#deleteUserTokens(tenant, user);
    } finally {
      this.#credentialWrites++;
    }
  }

  async #deleteUserTokens(tenant: TenantId, user: string): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM tokens WHERE tenant = $1 AND user_name = $2', [tenant, user]);
    return rowCount ?? 0;
  }

  async createSession(tenant: TenantId, session: SessionRecord): Promise<void> {
    await this.#inLiveTenant(tenant, (db) =>
      db.query(
        `INSERT INTO sessions (tenant, hash, kind, user_name, data, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [tenant, session.hash, session.kind, session.user, JSON.stringify(session.data), session.createdAt, session.expiresAt],
      ),
    );
  }

  async getSession(tenant: TenantId, hash: string, now: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.pool.query<SessionRow>(
      `SELECT hash, kind, user_name, data, created_at, expires_at FROM sessions
       WHERE tenant = $1 AND hash = $2 AND expires_at COLLATE "C" > $3`,
      [tenant, hash, now],
    );
    const row = rows[0];
    return (
      row && {
        hash: row.hash,
        kind: row.kind,
        user: row.user_name,
        data: row.data,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async claimSession(tenant: TenantId, hash: string, user: string, now: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE sessions SET user_name = $1
       WHERE tenant = $2 AND hash = $3 AND user_name IS NULL AND expires_at COLLATE "C" > $4`,
      [user, tenant, hash, now],
    );
    return rowCount === 1;
  }

  async deleteSession(tenant: TenantId, hash: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM sessions WHERE tenant = $1 AND hash = $2', [tenant, hash]);
    return rowCount === 1;
  }

  async deleteExpiredSessions(now: string): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM sessions WHERE expires_at COLLATE "C" <= $1', [now]);
    return rowCount ?? 0;
  }

  package(tenant: TenantId, name: string): PackageHandle {
    return packageHandle(this, tenant, name);
  }

  async getPackage(tenant: TenantId, name: string): Promise<StoredPackage | undefined> {
    const row = await readPackageRow(this.pool, tenant, name);
    return row && toStoredPackage(row);
  }

  async versionsOf(tenant: TenantId, name: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ version: string }>(
      "SELECT json_object_keys(document->'versions') AS version FROM packages WHERE tenant = $1 AND name = $2",
      [tenant, name],
    );
    return rows.map((row) => row.version);
  }

  async updatePackage<T>(tenant: TenantId, name: string, mutate: Mutate<T>): Promise<T> {
    return this.#mutex.run(`${tenant}\0${name}`, () => this.#updateUnderLock(tenant, name, mutate));
  }

  async listPackageNames(tenant: TenantId, options: { includeUnpublished?: boolean } = {}): Promise<string[]> {
    const filter = options.includeUnpublished ? '' : ' AND NOT unpublished';
    const { rows } = await this.pool.query<{ name: string }>(
      `SELECT name FROM packages WHERE tenant = $1${filter} ORDER BY name COLLATE "C"`,
      [tenant],
    );
    return rows.map((row) => row.name);
  }

  async referencedBlobKeys(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ tenant: string; name: string; version: string }>(
      `SELECT tenant, name, json_object_keys(document -> 'versions') AS version FROM packages
       WHERE json_typeof(document -> 'versions') = 'object'`,
    );
    return new Set(rows.flatMap((row) => blobKeysOfVersion(row.tenant, row.name, row.version)));
  }

  /** Read, mutate and write in one transaction holding the package's lock. */
  async #updateUnderLock<T>(tenant: TenantId, name: string, mutate: Mutate<T>): Promise<T> {
    return inTransaction(this.#writePool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || $2 || $3))', [
        LOCK_NAMESPACE,
        `\n${tenant}\n`,
        name,
      ]);
      await requireLiveTenant(client, tenant);
      const current = await readPackageRow(client, tenant, name, true);
      const { next, result } = await mutate(current && toStoredPackage(current));
      // Nothing to write: the commit only releases the lock.
      if (next !== null) await this.#write(client, tenant, name, next, Number(current?.write_count ?? 0) + 1);
      return result;
    });
  }

  /** A write of a tenant's rows in a transaction that holds the tenant's row (see requireLiveTenant). */
  async #inLiveTenant<T>(tenant: TenantId, write: (db: pg.Pool | pg.ClientBase) => Promise<T>): Promise<T> {
    if (tenant === GLOBAL_TENANT) return write(this.pool);
    return inTransaction(this.#writePool, async (client) => {
      await requireLiveTenant(client, tenant);
      return write(client);
    });
  }

  async #write(client: pg.ClientBase, tenant: TenantId, name: string, pkg: StoredPackage, writeCount: number): Promise<void> {
    await client.query(
      `INSERT INTO packages (tenant, name, document, published_versions, unpublished, write_count, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (tenant, name) DO UPDATE SET document = EXCLUDED.document,
         published_versions = EXCLUDED.published_versions, unpublished = EXCLUDED.unpublished,
         write_count = EXCLUDED.write_count, updated_at = EXCLUDED.updated_at`,
      [tenant, name, JSON.stringify(pkg.document), JSON.stringify(pkg.publishedVersions), pkg.unpublished, writeCount],
    );
    for (const hook of this.#hooks) await hook.onWrite(client, tenant, name, pkg);
  }
}

/**
 * Inside a write transaction: the tenant's row, share-locked until the commit, or
 * TenantGoneError. The tenant's delete locks that row first, so it waits for this write to
 * commit and then deletes its rows too, or this waits for the delete and finds no row: nothing
 * is written to a tenant after its delete returned.
 */
export async function requireLiveTenant(client: pg.ClientBase, tenant: TenantId): Promise<void> {
  if (tenant === GLOBAL_TENANT) return;
  const { rowCount } = await client.query('SELECT 1 FROM tenants WHERE name = $1 FOR SHARE', [tenant]);
  if (rowCount === 0) throw new TenantGoneError(tenant);
}

async function readPackageRow(
  db: pg.Pool | pg.ClientBase,
  tenant: TenantId,
  name: string,
  forUpdate = false,
): Promise<PackageRow | undefined> {
  const { rows } = await db.query<PackageRow>(
    `SELECT document, published_versions, unpublished, write_count FROM packages WHERE tenant = $1 AND name = $2${
      forUpdate ? ' FOR UPDATE' : ''
    }`,
    [tenant, name],
  );
  return rows[0];
}

interface TenantRow {
  name: string;
  incarnation: string;
  created_at: string;
  settings: TenantSettings;
}

function toTenant(row: TenantRow): TenantRecord {
  return { name: row.name, incarnation: row.incarnation, createdAt: row.created_at, settings: row.settings };
}

interface UserRow {
  name: string;
  email: string;
  password_hash: string;
  created_at: string;
  disabled: boolean;
  second_factor: string | null;
  admin: boolean;
}

function toUser(row: UserRow): UserRecord {
  return {
    name: row.name,
    email: row.email,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    disabled: row.disabled,
    ...(row.second_factor !== null ? { secondFactor: JSON.parse(row.second_factor) as SecondFactor } : {}),
    ...(row.admin === true ? { admin: true } : {}),
  };
}

const TOKEN_COLUMNS = 'hash, user_name, created_at, expires_at, readonly, prefix, scope, last_used_at, last_address';

interface TokenRow {
  hash: string;
  user_name: string;
  created_at: string;
  expires_at: string | null;
  readonly: boolean;
  prefix: string | null;
  scope: TokenScope | null;
  last_used_at: string | null;
  last_address: string | null;
}

function toToken(row: TokenRow): TokenRecord {
  return {
    hash: row.hash,
    user: row.user_name,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    readonly: row.readonly,
    ...(row.prefix !== null ? { prefix: row.prefix } : {}),
    ...(row.scope !== null ? { scope: row.scope } : {}),
    ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
    ...(row.last_address !== null ? { lastAddress: row.last_address } : {}),
  };
}

interface SessionRow {
  hash: string;
  kind: string;
  user_name: string | null;
  data: Record<string, unknown>;
  created_at: string;
  expires_at: string;
}

/** A `packages` row as the store returns it (for migrations that re-derive from documents). */
export function toStoredPackage(row: Pick<PackageRow, 'document' | 'published_versions' | 'unpublished'>): StoredPackage {
  return { document: row.document, publishedVersions: row.published_versions, unpublished: row.unpublished };
}
