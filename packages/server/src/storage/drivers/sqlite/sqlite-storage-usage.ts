import type Database from 'better-sqlite3';
import type { CollectResult, RegistryUsage, StorageUsageStore, TenantId, VersionUsage } from '../../ports.js';
import { packageUsageWrite, quotaProblem, rowsAfter, usageAfter } from '../../storage-usage.js';
import { AttachedDatabase } from './attached-database.js';
import type { SqlitePackageWriteHook } from './sqlite-metadata-store.js';

type Db = Database.Database;

/**
 * One row per version with its blobs' size (NULL: not measured yet, a version published before
 * sizes were recorded; the server measures them once it listens). Packages cached from an
 * uplink are not the registry's own and have no rows.
 */
export const STORAGE_USAGE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE storage_usage (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    bytes INTEGER,
    files INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, name, version)
  ) WITHOUT ROWID;
  INSERT INTO storage_usage (tenant, name, version, bytes, files)
    SELECT p.tenant, p.name, v.key, NULL, 0 FROM packages p, json_each(p.document, '$.versions') v
    WHERE p.unpublished = 0
      AND NOT EXISTS (SELECT 1 FROM uplink_cache u WHERE u.tenant = p.tenant AND u.name = p.name);
  CREATE TABLE storage_collects (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at TEXT NOT NULL,
    orphans INTEGER NOT NULL,
    temporary_files INTEGER NOT NULL,
    incomplete_uploads INTEGER NOT NULL
  );
  `,
];

interface UsageRow {
  version: string;
  bytes: number | null;
  files: number;
}

/**
 * Storage usage in the SQLite database. Its write hook runs inside the package's IMMEDIATE
 * write transaction, which every writer of the file (server and command line) takes one after
 * the other: a quota check there sees every write committed before it.
 */
export class SqliteStorageUsage implements StorageUsageStore {
  readonly #db = new AttachedDatabase('SqliteStorageUsage');

  readonly writeHook: SqlitePackageWriteHook = {
    name: 'storage-usage',
    migrations: STORAGE_USAGE_MIGRATIONS,
    onWrite: (_db, tenant, name, pkg) => {
      const rows = this.#db
        .statement('SELECT version, bytes, files FROM storage_usage WHERE tenant = ? AND name = ?')
        .all(tenant, name) as UsageRow[];
      const write = packageUsageWrite(
        pkg,
        rows.map((row) => row.version),
      );
      if (write.removed.length === 0 && write.added.length === 0) return;
      const limit = pkg.usage?.limit;
      if (limit) {
        const old = new Map(
          rows.map((row): [string, VersionUsage] => [row.version, { bytes: row.bytes ?? 0, files: row.files }]),
        );
        const before = this.#usage(tenant);
        const problem = quotaProblem(tenant, before, usageAfter(before, old, rowsAfter(old, write)), limit);
        if (problem) throw problem;
      }
      const remove = this.#db.statement('DELETE FROM storage_usage WHERE tenant = ? AND name = ? AND version = ?');
      for (const version of write.removed) remove.run(tenant, name, version);
      const put = this.#db.statement(
        'INSERT OR REPLACE INTO storage_usage (tenant, name, version, bytes, files) VALUES (?, ?, ?, ?, ?)',
      );
      for (const [version, usage] of write.added) put.run(tenant, name, version, usage.bytes, usage.files);
    },
    onTenantDelete: (db, tenant) => {
      db.prepare('DELETE FROM storage_usage WHERE tenant = ?').run(tenant);
    },
  };

  attach(db: Db): void {
    this.#db.attach(db);
  }

  async usage(tenant: TenantId): Promise<RegistryUsage> {
    return this.#usage(tenant);
  }

  async all(): Promise<Map<TenantId, RegistryUsage>> {
    const rows = this.#db
      .statement(
        `SELECT tenant, COALESCE(SUM(bytes), 0) AS bytes, SUM(files) AS files, COUNT(DISTINCT name) AS packages
         FROM storage_usage GROUP BY tenant`,
      )
      .all() as (RegistryUsage & { tenant: string })[];
    return new Map(rows.map(({ tenant, ...usage }) => [tenant, usage]));
  }

  async unmeasured(tenant: TenantId): Promise<{ name: string; version: string }[]> {
    return this.#db
      .statement('SELECT name, version FROM storage_usage WHERE tenant = ? AND bytes IS NULL ORDER BY name, version')
      .all(tenant) as { name: string; version: string }[];
  }

  async recordCollect(result: CollectResult): Promise<void> {
    this.#db
      .statement(
        `INSERT OR REPLACE INTO storage_collects (id, at, orphans, temporary_files, incomplete_uploads) VALUES (1, ?, ?, ?, ?)`,
      )
      .run(result.at, result.orphans, result.temporaryFiles, result.incompleteUploads);
  }

  async lastCollect(): Promise<CollectResult | undefined> {
    const row = this.#db
      .statement('SELECT at, orphans, temporary_files, incomplete_uploads FROM storage_collects WHERE id = 1')
      .get() as { at: string; orphans: number; temporary_files: number; incomplete_uploads: number } | undefined;
    return (
      row && {
        at: row.at,
        orphans: row.orphans,
        temporaryFiles: row.temporary_files,
        incompleteUploads: row.incomplete_uploads,
      }
    );
  }

  #usage(tenant: TenantId): RegistryUsage {
    return this.#db
      .statement(
        `SELECT COALESCE(SUM(bytes), 0) AS bytes, COALESCE(SUM(files), 0) AS files, COUNT(DISTINCT name) AS packages
         FROM storage_usage WHERE tenant = ?`,
      )
      .get(tenant) as RegistryUsage;
  }
}
