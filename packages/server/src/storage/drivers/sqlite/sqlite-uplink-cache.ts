import type Database from 'better-sqlite3';
import type { TenantId, UplinkCacheRecord, UplinkCacheStore } from '../../ports.js';
import { AttachedDatabase } from './attached-database.js';
import { tenantTableHook, type SqlitePackageWriteHook } from './sqlite-metadata-store.js';

type Db = Database.Database;

export const UPLINK_CACHE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE uplink_cache (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    uplink TEXT NOT NULL,
    etag TEXT,
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (tenant, name)
  ) WITHOUT ROWID;
  `,
];

interface Row {
  uplink: string;
  etag: string | null;
  fetched_at: string;
}

/** Freshness of cached upstream packages in the SQLite database, beside the documents. */
export class SqliteUplinkCache implements UplinkCacheStore {
  readonly #db = new AttachedDatabase('SqliteUplinkCache');

  readonly writeHook: SqlitePackageWriteHook = tenantTableHook('uplink-cache', UPLINK_CACHE_MIGRATIONS, 'uplink_cache');

  attach(db: Db): void {
    this.#db.attach(db);
  }

  async get(tenant: TenantId, name: string): Promise<UplinkCacheRecord | undefined> {
    const row = this.#db
      .statement('SELECT uplink, etag, fetched_at FROM uplink_cache WHERE tenant = ? AND name = ?')
      .get(tenant, name) as Row | undefined;
    return row && { uplink: row.uplink, etag: row.etag, fetchedAt: row.fetched_at };
  }

  /** Nothing for a tenant deleted meanwhile: one statement, so the tenant's delete is before or after it. */
  async put(tenant: TenantId, name: string, record: UplinkCacheRecord): Promise<void> {
    this.#db
      .statement(
        `INSERT INTO uplink_cache (tenant, name, uplink, etag, fetched_at)
         SELECT ?, ?, ?, ?, ? WHERE ? = '' OR EXISTS (SELECT 1 FROM tenants WHERE name = ?)
         ON CONFLICT (tenant, name) DO UPDATE SET uplink = excluded.uplink, etag = excluded.etag, fetched_at = excluded.fetched_at`,
      )
      .run(tenant, name, record.uplink, record.etag, record.fetchedAt, tenant, tenant);
  }
}
