import type { TenantId, TenantRecord, TenantSettings, TenantStore } from '../../ports.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Tenants in the SQLite database. */
export class SqliteTenants implements TenantStore {
  readonly #connection: SqliteConnection;
  readonly #deleteRecords: (tenant: TenantId) => void;

  /** `deleteRecords` removes everything else of a tenant, inside the transaction of its delete. */
  constructor(connection: SqliteConnection, deleteRecords: (tenant: TenantId) => void) {
    this.#connection = connection;
    this.#deleteRecords = deleteRecords;
  }

  async get(name: TenantId): Promise<TenantRecord | undefined> {
    const row = this.#connection
      .statement('SELECT name, incarnation, created_at, settings FROM tenants WHERE name = ?')
      .get(name) as TenantRow | undefined;
    return row && toTenant(row);
  }

  async list(): Promise<TenantRecord[]> {
    const rows = this.#connection
      .statement('SELECT name, incarnation, created_at, settings FROM tenants ORDER BY name')
      .all() as TenantRow[];
    return rows.map(toTenant);
  }

  async create(tenant: TenantRecord): Promise<boolean> {
    const info = this.#connection
      .statement('INSERT INTO tenants (name, incarnation, created_at, settings) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
      .run(tenant.name, tenant.incarnation, tenant.createdAt, JSON.stringify(tenant.settings));
    if (info.changes === 1) this.#connection.credentialWrites++;
    return info.changes === 1;
  }

  async updateSettings(name: TenantId, settings: TenantSettings): Promise<boolean> {
    const info = this.#connection.statement('UPDATE tenants SET settings = ? WHERE name = ?').run(JSON.stringify(settings), name);
    this.#connection.credentialWrites++;
    return info.changes === 1;
  }

  async delete(name: TenantId): Promise<boolean> {
    this.#connection.credentialWrites++;
    return this.#connection.db
      .transaction(() => {
        const info = this.#connection.statement('DELETE FROM tenants WHERE name = ?').run(name);
        if (info.changes === 0) return false;
        this.#deleteRecords(name);
        return true;
      })
      .immediate();
  }
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
