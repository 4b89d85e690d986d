import type pg from 'pg';
import type { CollectResult, RegistryUsage, StorageUsageStore, TenantId, VersionUsage } from '../../ports.js';
import { packageUsageWrite, quotaProblem, rowsAfter, usageAfter } from '../../storage-usage.js';
import { groupVersions } from '../../package-handle.js';
import { LOCK_NAMESPACE } from './migrations.js';
import type { PostgresPackageWriteHook } from './postgres-metadata-store.js';

/** As the SQLite driver's (sqlite-storage-usage.ts): one row per version, NULL bytes not measured yet. */
export const POSTGRES_STORAGE_USAGE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE storage_usage (
    tenant text NOT NULL,
    name text NOT NULL,
    version text NOT NULL,
    bytes bigint,
    files integer NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, name, version)
  );
  INSERT INTO storage_usage (tenant, name, version, bytes, files)
    SELECT p.tenant, p.name, v.version, NULL, 0
    FROM packages p CROSS JOIN LATERAL json_object_keys(
      CASE WHEN json_typeof(p.document -> 'versions') = 'object' THEN p.document -> 'versions' ELSE '{}'::json END
    ) AS v(version)
    WHERE NOT p.unpublished
      AND NOT EXISTS (SELECT 1 FROM uplink_cache u WHERE u.tenant = p.tenant AND u.name = p.name);
  CREATE TABLE storage_collects (
    id integer PRIMARY KEY CHECK (id = 1),
    at text NOT NULL,
    orphans integer NOT NULL,
    temporary_files integer NOT NULL,
    incomplete_uploads integer NOT NULL
  );
  `,
];

interface UsageRow {
  version: string;
  bytes: string | null;
  files: number;
}

const USAGE_SQL = `SELECT COALESCE(SUM(bytes), 0)::float8 AS bytes, COALESCE(SUM(files), 0)::float8 AS files,
  COUNT(DISTINCT name)::float8 AS packages FROM storage_usage WHERE tenant = $1`;

/**
 * Storage usage in PostgreSQL, shared by every node. A write that carries quotas takes the
 * registry's usage lock (an advisory lock held to its commit) before it sums the usage: two
 * publishes on any nodes check one after the other, the second seeing the first's commit.
 */
export class PostgresStorageUsage implements StorageUsageStore {
  #pool: pg.Pool | undefined;

  readonly writeHook: PostgresPackageWriteHook = {
    name: 'storage-usage',
    migrations: POSTGRES_STORAGE_USAGE_MIGRATIONS,
    onWrite: async (client, tenant, name, pkg) => {
      const limit = pkg.usage?.limit;
      const { rows } = await client.query<UsageRow>(
        'SELECT version, bytes, files FROM storage_usage WHERE tenant = $1 AND name = $2',
        [tenant, name],
      );
      const write = packageUsageWrite(
        pkg,
        rows.map((row) => row.version),
      );
      if (write.removed.length === 0 && write.added.length === 0) return;
      if (limit) {
        // After the package's own lock (taken first by every writer): no lock-order cycle.
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || $2))', [
          LOCK_NAMESPACE,
          `\nusage\n${tenant}`,
        ]);
        const old = new Map(
          rows.map((row): [string, VersionUsage] => [row.version, { bytes: Number(row.bytes ?? 0), files: row.files }]),
        );
        const before = (await client.query<RegistryUsage>(USAGE_SQL, [tenant])).rows[0]!;
        const problem = quotaProblem(tenant, before, usageAfter(before, old, rowsAfter(old, write)), limit);
        if (problem) throw problem;
      }
      if (write.removed.length > 0) {
        await client.query('DELETE FROM storage_usage WHERE tenant = $1 AND name = $2 AND version = ANY($3::text[])', [
          tenant,
          name,
          write.removed,
        ]);
      }
      if (write.added.length > 0) {
        await client.query(
          `INSERT INTO storage_usage (tenant, name, version, bytes, files)
           SELECT $1, $2, a.version, a.bytes, a.files FROM unnest($3::text[], $4::bigint[], $5::integer[]) AS a(version, bytes, files)
           ON CONFLICT (tenant, name, version) DO UPDATE SET bytes = EXCLUDED.bytes, files = EXCLUDED.files`,
          [
            tenant,
            name,
            write.added.map(([version]) => version),
            write.added.map(([, usage]) => usage.bytes),
            write.added.map(([, usage]) => usage.files),
          ],
        );
      }
    },
    // Writes that carry quotas are checked one after the other, as their updates would be.
    onWrites: async (client, tenant, writes) => {
      if (writes.some(({ next }) => next.usage?.limit)) {
        for (const { name, next } of writes) await this.writeHook.onWrite(client, tenant, name, next);
        return;
      }
      const { rows } = await client.query<{ name: string; version: string }>(
        'SELECT name, version FROM storage_usage WHERE tenant = $1 AND name = ANY($2::text[])',
        [tenant, writes.map((write) => write.name)],
      );
      const existing = groupVersions(rows);
      const removed: [string, string][] = [];
      const added: [string, string, VersionUsage][] = [];
      for (const { name, next } of writes) {
        const write = packageUsageWrite(next, existing.get(name) ?? []);
        for (const version of write.removed) removed.push([name, version]);
        for (const [version, usage] of write.added) added.push([name, version, usage]);
      }
      if (removed.length > 0) {
        await client.query(
          `DELETE FROM storage_usage u USING unnest($2::text[], $3::text[]) AS r(name, version)
           WHERE u.tenant = $1 AND u.name = r.name AND u.version = r.version`,
          [tenant, removed.map(([name]) => name), removed.map(([, version]) => version)],
        );
      }
      if (added.length > 0) {
        await client.query(
          `INSERT INTO storage_usage (tenant, name, version, bytes, files)
           SELECT $1, a.name, a.version, a.bytes, a.files
           FROM unnest($2::text[], $3::text[], $4::bigint[], $5::integer[]) AS a(name, version, bytes, files)
           ON CONFLICT (tenant, name, version) DO UPDATE SET bytes = EXCLUDED.bytes, files = EXCLUDED.files`,
          [
            tenant,
            added.map(([name]) => name),
            added.map(([, version]) => version),
            added.map(([, , usage]) => usage.bytes),
            added.map(([, , usage]) => usage.files),
          ],
        );
      }
    },
    onTenantDelete: async (client, tenant) => {
      await client.query('DELETE FROM storage_usage WHERE tenant = $1', [tenant]);
    },
  };

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async usage(tenant: TenantId): Promise<RegistryUsage> {
    return (await this.#requirePool().query<RegistryUsage>(USAGE_SQL, [tenant])).rows[0]!;
  }

  async all(): Promise<Map<TenantId, RegistryUsage>> {
    const { rows } = await this.#requirePool().query<RegistryUsage & { tenant: string }>(
      `SELECT tenant, COALESCE(SUM(bytes), 0)::float8 AS bytes, COALESCE(SUM(files), 0)::float8 AS files,
         COUNT(DISTINCT name)::float8 AS packages FROM storage_usage GROUP BY tenant`,
    );
    return new Map(rows.map(({ tenant, ...usage }) => [tenant, usage]));
  }

  async unmeasured(tenant: TenantId): Promise<{ name: string; version: string }[]> {
    const { rows } = await this.#requirePool().query<{ name: string; version: string }>(
      'SELECT name, version FROM storage_usage WHERE tenant = $1 AND bytes IS NULL ORDER BY name COLLATE "C", version COLLATE "C"',
      [tenant],
    );
    return rows;
  }

  async recordCollect(result: CollectResult): Promise<void> {
    await this.#requirePool().query(
      `INSERT INTO storage_collects (id, at, orphans, temporary_files, incomplete_uploads) VALUES (1, $1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at, orphans = EXCLUDED.orphans,
         temporary_files = EXCLUDED.temporary_files, incomplete_uploads = EXCLUDED.incomplete_uploads`,
      [result.at, result.orphans, result.temporaryFiles, result.incompleteUploads],
    );
  }

  async lastCollect(): Promise<CollectResult | undefined> {
    const { rows } = await this.#requirePool().query<{
      at: string;
      orphans: number;
      temporary_files: number;
      incomplete_uploads: number;
    }>('SELECT at, orphans, temporary_files, incomplete_uploads FROM storage_collects WHERE id = 1');
    const row = rows[0];
    return (
      row && { at: row.at, orphans: row.orphans, temporaryFiles: row.temporary_files, incompleteUploads: row.incomplete_uploads }
    );
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresStorageUsage is not attached to a pool');
    return this.#pool;
  }
}
