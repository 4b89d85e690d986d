import type Database from 'better-sqlite3';
import type { AdvisoryRecord, AdvisoryStore, TenantId } from '../../ports.js';
import { byName, sorted } from '../../advisory-order.js';
import { AttachedDatabase } from './attached-database.js';
import { tenantTableHook, type SqlitePackageWriteHook } from './sqlite-metadata-store.js';

type Db = Database.Database;

export const ADVISORY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE advisories (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    id TEXT NOT NULL,
    record TEXT NOT NULL,
    withdrawn INTEGER NOT NULL,
    PRIMARY KEY (tenant, name, id)
  ) WITHOUT ROWID;
  `,
];

/** Advisories in the SQLite database, each a JSON record beside its key. */
export class SqliteAdvisories implements AdvisoryStore {
  readonly #db = new AttachedDatabase('SqliteAdvisories');

  readonly writeHook: SqlitePackageWriteHook = tenantTableHook('advisories', ADVISORY_MIGRATIONS, 'advisories');

  attach(db: Db): void {
    this.#db.attach(db);
  }

  async list(tenant: TenantId, name: string): Promise<AdvisoryRecord[]> {
    const rows = this.#db.statement('SELECT record FROM advisories WHERE tenant = ? AND name = ?').all(tenant, name) as {
      record: string;
    }[];
    return sorted(rows.map((row) => JSON.parse(row.record) as AdvisoryRecord));
  }

  async inForce(tenant: TenantId, names: readonly string[]): Promise<Map<string, AdvisoryRecord[]>> {
    const rows = this.#db
      .statement('SELECT record FROM advisories WHERE tenant = ? AND withdrawn = 0 AND name IN (SELECT value FROM json_each(?))')
      .all(tenant, JSON.stringify(names)) as { record: string }[];
    return byName(rows.map((row) => JSON.parse(row.record) as AdvisoryRecord));
  }

  async listAll(tenant: TenantId): Promise<AdvisoryRecord[]> {
    const rows = this.#db.statement('SELECT record FROM advisories WHERE tenant = ?').all(tenant) as { record: string }[];
    return sorted(rows.map((row) => JSON.parse(row.record) as AdvisoryRecord));
  }

  async put(tenant: TenantId, advisory: AdvisoryRecord): Promise<void> {
    this.#db
      .statement(
        `INSERT INTO advisories (tenant, name, id, record, withdrawn)
         SELECT ?, ?, ?, ?, ? WHERE ? = '' OR EXISTS (SELECT 1 FROM tenants WHERE name = ?)
         ON CONFLICT (tenant, name, id) DO UPDATE SET record = excluded.record, withdrawn = excluded.withdrawn`,
      )
      .run(tenant, advisory.name, advisory.id, JSON.stringify(advisory), advisory.withdrawnAt === null ? 0 : 1, tenant, tenant);
  }
}
