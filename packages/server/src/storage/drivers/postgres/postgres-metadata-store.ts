import type pg from 'pg';
import { KeyedMutex } from '../../keyed-mutex.js';
import { distinctNames, groupVersions, packageHandle, type PackageRecords } from '../../package-handle.js';
import type {
  AccountStores,
  MetadataStore,
  PackageHandle,
  PackageMutation,
  PackageWrite,
  StoredPackage,
  TenantId,
} from '../../ports.js';
import { LOCK_NAMESPACE, POSTGRES_MIGRATIONS, applyMigrations, type PostgresMigration } from './migrations.js';
import { createPool, createSnapshotPool, inTransaction, withSession, type PgLocation } from './pg-connection.js';
import type { MigrationLog } from '../../schema-history.js';
import { PostgresPools, requireLiveTenant } from './postgres-pools.js';
import { PostgresSessions } from './postgres-sessions.js';
import { PostgresTenants } from './postgres-tenants.js';
import { PostgresTokens } from './postgres-tokens.js';
import { PostgresUsers } from './postgres-users.js';

export { requireLiveTenant } from './postgres-pools.js';

/** Work run inside the write transaction of a package (e.g. the search index), on its session. */
export interface PostgresPackageWriteHook {
  /** Names the hook's migrations in schema_migrations. */
  name: string;
  migrations?: readonly PostgresMigration[];
  onWrite(client: pg.ClientBase, tenant: TenantId, name: string, pkg: StoredPackage): Promise<void>;
  /**
   * The same for several packages written together (`writePackages`), in a few statements for
   * all of them; without it, `onWrite` runs for each.
   */
  onWrites?(client: pg.ClientBase, tenant: TenantId, writes: readonly PackageWrite[]): Promise<void>;
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

export interface PackageRow {
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
  readonly accounts: AccountStores;

  /** `snapshot`: every read sees one consistent snapshot and nothing can be written (a backup's source). */
  constructor(location: PgLocation, hooks: PostgresPackageWriteHook[] = [], options: { snapshot?: boolean } = {}) {
    this.location = location;
    this.pool = options.snapshot ? createSnapshotPool(location) : createPool(location);
    this.#writePool = createPool(location, Math.max(2, Math.ceil(location.poolSize / 2)));
    // An idle session dropped by the server must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
    this.#writePool.on('error', () => undefined);
    this.#hooks = hooks;
    const pools = new PostgresPools(this.pool, this.#writePool);
    this.accounts = {
      tenants: new PostgresTenants(pools, (client, tenant) => this.#deleteTenantRecords(client, tenant)),
      users: new PostgresUsers(pools),
      tokens: new PostgresTokens(pools),
      sessions: new PostgresSessions(pools),
      // Writes of users, tokens or tenants through these stores.
      credentialsVersion: () => pools.credentialWrites,
      // Only this process's writes: other nodes' revocations are seen when the cache rechecks.
      credentialsVersionCoversOthers: false,
    };
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

  /** Everything of a deleted tenant but its row, inside the transaction that deletes the row. */
  async #deleteTenantRecords(client: pg.ClientBase, name: TenantId): Promise<void> {
    for (const table of ['users', 'tokens', 'sessions', 'packages']) {
      await client.query(`DELETE FROM ${table} WHERE tenant = $1`, [name]);
    }
    for (const hook of this.#hooks) await hook.onTenantDelete?.(client, name);
  }

  package(tenant: TenantId, name: string): PackageHandle {
    return packageHandle(this, tenant, name);
  }

  async getPackage(tenant: TenantId, name: string): Promise<StoredPackage | undefined> {
    const row = await readPackageRow(this.pool, tenant, name);
    return row && packageOfRow(row);
  }

  async versionsOfPackages(tenant: TenantId, names: readonly string[]): Promise<Map<string, string[]>> {
    const { rows } = await this.pool.query<{ name: string; version: string }>(
      "SELECT name, json_object_keys(document->'versions') AS version FROM packages WHERE tenant = $1 AND name = ANY($2::text[])",
      [tenant, names],
    );
    return groupVersions(rows);
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

  async readPackages(tenant: TenantId, names: readonly string[]): Promise<Map<string, StoredPackage>> {
    const { rows } = await this.pool.query<PackageRow & { name: string }>(
      `SELECT name, document, published_versions, unpublished, write_count FROM packages
       WHERE tenant = $1 AND name = ANY($2::text[])`,
      [tenant, names],
    );
    return new Map(rows.map((row) => [row.name, packageOfRow(row)]));
  }

  async writePackages(tenant: TenantId, writes: readonly PackageWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const names = distinctNames(writes);
    await inTransaction(this.#writePool, async (client) => {
      // Each package's lock, as its update takes it, in one order for every batch: two batches
      // never wait on each other in a cycle, and an update holds one package lock only.
      const sorted = [...names].sort();
      await client.query(
        `SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || $2 || n.name))
         FROM unnest($3::text[]) WITH ORDINALITY AS n(name, position) ORDER BY n.position`,
        [LOCK_NAMESPACE, `\n${tenant}\n`, sorted],
      );
      await requireLiveTenant(client, tenant);
      await client.query(
        `INSERT INTO packages (tenant, name, document, published_versions, unpublished, write_count, updated_at)
         SELECT $1, w.name, w.document::json, w.published::json, w.unpublished, coalesce(p.write_count, 0) + 1, now()
         FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[]) AS w(name, document, published, unpublished)
         LEFT JOIN packages p ON p.tenant = $1 AND p.name = w.name
         ON CONFLICT (tenant, name) DO UPDATE SET document = EXCLUDED.document,
           published_versions = EXCLUDED.published_versions, unpublished = EXCLUDED.unpublished,
           write_count = EXCLUDED.write_count, updated_at = EXCLUDED.updated_at`,
        [
          tenant,
          names,
          writes.map((w) => JSON.stringify(w.next.document)),
          writes.map((w) => JSON.stringify(w.next.publishedVersions)),
          writes.map((w) => w.next.unpublished),
        ],
      );
      for (const hook of this.#hooks) {
        if (hook.onWrites) await hook.onWrites(client, tenant, writes);
        else for (const { name, next } of writes) await hook.onWrite(client, tenant, name, next);
      }
    });
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

/** A `packages` row as a read answers it: with the revision a render made from it is kept against. */
export function packageOfRow(row: PackageRow): StoredPackage {
  return { ...toStoredPackage(row), revision: Number(row.write_count) };
}

/** A `packages` row as the store returns it (for migrations that re-derive from documents). */
export function toStoredPackage(row: Pick<PackageRow, 'document' | 'published_versions' | 'unpublished'>): StoredPackage {
  return { document: row.document, publishedVersions: row.published_versions, unpublished: row.unpublished };
}
