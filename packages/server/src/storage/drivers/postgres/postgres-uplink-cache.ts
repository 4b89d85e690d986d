import type pg from 'pg';
import { inTransaction } from './pg-connection.js';
import type { TenantId, UplinkCacheRecord, UplinkCacheStore } from '../../ports.js';
import { tenantTableHook, type PostgresPackageWriteHook } from './postgres-metadata-store.js';

export const POSTGRES_UPLINK_CACHE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE uplink_cache (
    tenant text NOT NULL,
    name text NOT NULL,
    uplink text NOT NULL,
    etag text,
    fetched_at text NOT NULL,
    PRIMARY KEY (tenant, name)
  );
  `,
];

/** Freshness of cached upstream packages in PostgreSQL: every node sees what any node fetched. */
export class PostgresUplinkCache implements UplinkCacheStore {
  #pool: pg.Pool | undefined;

  readonly writeHook: PostgresPackageWriteHook = tenantTableHook(
    'uplink-cache',
    POSTGRES_UPLINK_CACHE_MIGRATIONS,
    'uplink_cache',
  );

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async get(tenant: TenantId, name: string): Promise<UplinkCacheRecord | undefined> {
    const { rows } = await this.#requirePool().query<{ uplink: string; etag: string | null; fetched_at: string }>(
      'SELECT uplink, etag, fetched_at FROM uplink_cache WHERE tenant = $1 AND name = $2',
      [tenant, name],
    );
    const row = rows[0];
    return row && { uplink: row.uplink, etag: row.etag, fetchedAt: row.fetched_at };
  }

  /** Nothing for a tenant deleted meanwhile (its row is share-locked, as every tenant write does). */
  async put(tenant: TenantId, name: string, record: UplinkCacheRecord): Promise<void> {
    await inTransaction(this.#requirePool(), async (client) => {
      if (tenant !== '' && (await client.query('SELECT 1 FROM tenants WHERE name = $1 FOR SHARE', [tenant])).rowCount === 0)
        return;
      await client.query(
        `INSERT INTO uplink_cache (tenant, name, uplink, etag, fetched_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant, name) DO UPDATE SET uplink = excluded.uplink, etag = excluded.etag, fetched_at = excluded.fetched_at`,
        [tenant, name, record.uplink, record.etag, record.fetchedAt],
      );
    });
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresUplinkCache is not attached to a pool');
    return this.#pool;
  }
}
