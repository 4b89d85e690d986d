import type pg from 'pg';
import { GLOBAL_TENANT, type DownloadCountStore, type DownloadIncrement, type TenantId } from '../../ports.js';
import { inTransaction } from './pg-connection.js';
import { tenantTableHook, type PostgresPackageWriteHook } from './postgres-metadata-store.js';

/** Downloads per tenant, package, day and version, as in the SQLite driver. */
export const POSTGRES_DOWNLOAD_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE download_counts (
    tenant text NOT NULL,
    name text NOT NULL,
    day text NOT NULL,
    version text NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (tenant, name, day, version)
  );
  CREATE INDEX download_counts_by_day ON download_counts (tenant, day);
  `,
];

/** Download counts in PostgreSQL; every node adds its batches to the same rows. */
export class PostgresDownloadCounts implements DownloadCountStore {
  #pool: pg.Pool | undefined;

  readonly writeHook: PostgresPackageWriteHook = tenantTableHook('downloads', POSTGRES_DOWNLOAD_MIGRATIONS, 'download_counts');

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async add(increments: readonly DownloadIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    // One row per key, in key order: two nodes adding overlapping batches lock rows in the
    // same order and never deadlock.
    const merged = new Map<string, DownloadIncrement>();
    for (const i of increments) {
      const key = [i.tenant, i.name, i.day, i.version].join('\0');
      const seen = merged.get(key);
      merged.set(key, seen ? { ...seen, count: seen.count + i.count } : i);
    }
    const sorted = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, i]) => i);
    await inTransaction(this.#requirePool(), async (client) => {
      // Counts buffered for a tenant deleted meanwhile go with it; the tenants still there stay
      // share-locked until the commit (see requireLiveTenant), so a delete waits for these rows.
      const tenants = [...new Set(sorted.map((i) => i.tenant).filter((t) => t !== GLOBAL_TENANT))].sort();
      const live = new Set<string>([GLOBAL_TENANT]);
      if (tenants.length > 0) {
        const { rows } = await client.query<{ name: string }>(
          'SELECT name FROM tenants WHERE name = ANY($1) ORDER BY name FOR SHARE',
          [tenants],
        );
        for (const row of rows) live.add(row.name);
      }
      const rows = sorted.filter((i) => live.has(i.tenant));
      if (rows.length === 0) return;
      await client.query(
        `INSERT INTO download_counts (tenant, name, day, version, count)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
         ON CONFLICT (tenant, name, day, version) DO UPDATE SET count = download_counts.count + EXCLUDED.count`,
        columns(rows),
      );
    });
  }

  async perDay(tenant: TenantId, name: string, startDay: string, endDay: string): Promise<{ day: string; downloads: number }[]> {
    const { rows } = await this.#requirePool().query<{ day: string; downloads: string }>(
      `SELECT day, sum(count) AS downloads FROM download_counts
       WHERE tenant = $1 AND name = $2 AND day BETWEEN $3 AND $4 GROUP BY day ORDER BY day`,
      [tenant, name, startDay, endDay],
    );
    return rows.map((row) => ({ day: row.day, downloads: Number(row.downloads) }));
  }

  async list(tenant: TenantId): Promise<DownloadIncrement[]> {
    const { rows } = await this.#requirePool().query<DownloadIncrement & { count: string }>(
      `SELECT tenant, name, day, version, count FROM download_counts WHERE tenant = $1
       ORDER BY name COLLATE "C", day COLLATE "C", version COLLATE "C"`,
      [tenant],
    );
    return rows.map((row) => ({ ...row, count: Number(row.count) }));
  }

  async replace(counts: readonly DownloadIncrement[]): Promise<void> {
    if (counts.length === 0) return;
    // One row per key (the last value wins), in key order like `add`.
    const byKey = new Map(counts.map((c) => [[c.tenant, c.name, c.day, c.version].join('\0'), c]));
    const rows = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
    await inTransaction(this.#requirePool(), async (client) => {
      await client.query(
        `INSERT INTO download_counts (tenant, name, day, version, count)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
         ON CONFLICT (tenant, name, day, version) DO UPDATE SET count = EXCLUDED.count`,
        columns(rows),
      );
    });
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresDownloadCounts is not attached to a database');
    return this.#pool;
  }
}

function columns(rows: readonly DownloadIncrement[]): unknown[] {
  return [
    rows.map((r) => r.tenant),
    rows.map((r) => r.name),
    rows.map((r) => r.day),
    rows.map((r) => r.version),
    rows.map((r) => r.count),
  ];
}
