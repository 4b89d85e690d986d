import type Database from 'better-sqlite3';
import { GLOBAL_TENANT, type DownloadCountStore, type DownloadIncrement, type TenantId } from '../../ports.js';
import { AttachedDatabase } from './attached-database.js';
import { tenantTableHook, type SqlitePackageWriteHook } from './sqlite-metadata-store.js';

type Db = Database.Database;

/**
 * Downloads per tenant, package, day and version. Keyed by package before day, so one
 * package's days are one range; the by-day index serves the registry-wide daily refresh.
 * The search index reads this table for its download windows.
 */
export const DOWNLOAD_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE download_counts (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    day TEXT NOT NULL,
    version TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (tenant, name, day, version)
  ) WITHOUT ROWID;
  CREATE INDEX download_counts_by_day ON download_counts (tenant, day);
  `,
];

export class SqliteDownloadCounts implements DownloadCountStore {
  readonly #db = new AttachedDatabase('SqliteDownloadCounts');

  readonly writeHook: SqlitePackageWriteHook = tenantTableHook('downloads', DOWNLOAD_MIGRATIONS, 'download_counts');

  attach(db: Db): void {
    this.#db.attach(db);
  }

  async add(increments: readonly DownloadIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    const db = this.#db.require();
    const upsert = this.#db.statement(
      `INSERT INTO download_counts (tenant, name, day, version, count) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, name, day, version) DO UPDATE SET count = count + excluded.count`,
    );
    const exists = this.#db.statement('SELECT 1 FROM tenants WHERE name = ?');
    db.transaction(() => {
      // Counts buffered for a tenant deleted meanwhile go with it.
      const live = new Map<string, boolean>();
      for (const i of increments) {
        let alive = live.get(i.tenant);
        if (alive === undefined) live.set(i.tenant, (alive = i.tenant === GLOBAL_TENANT || exists.get(i.tenant) !== undefined));
        if (alive) upsert.run(i.tenant, i.name, i.day, i.version, i.count);
      }
    }).immediate();
  }

  async perDay(tenant: TenantId, name: string, startDay: string, endDay: string): Promise<{ day: string; downloads: number }[]> {
    return this.#db
      .statement(
        `SELECT day, sum(count) AS downloads FROM download_counts
       WHERE tenant = ? AND name = ? AND day BETWEEN ? AND ? GROUP BY day ORDER BY day`,
      )
      .all(tenant, name, startDay, endDay) as { day: string; downloads: number }[];
  }

  async list(tenant: TenantId): Promise<DownloadIncrement[]> {
    return this.#db
      .statement(`SELECT tenant, name, day, version, count FROM download_counts WHERE tenant = ? ORDER BY name, day, version`)
      .all(tenant) as DownloadIncrement[];
  }

  async replace(counts: readonly DownloadIncrement[]): Promise<void> {
    if (counts.length === 0) return;
    const upsert = this.#db.statement(
      `INSERT INTO download_counts (tenant, name, day, version, count) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, name, day, version) DO UPDATE SET count = excluded.count`,
    );
    this.#db
      .require()
      .transaction(() => {
        for (const c of counts) upsert.run(c.tenant, c.name, c.day, c.version, c.count);
      })
      .immediate();
  }
}
