import type pg from 'pg';
import type { TenantId, TenantRecord, TenantSettings, TenantStore } from '../../ports.js';
import { inTransaction } from './pg-connection.js';
import type { PostgresPools } from './postgres-pools.js';

/** Tenants in PostgreSQL. */
export class PostgresTenants implements TenantStore {
  readonly #pools: PostgresPools;
  readonly #deleteRecords: (client: pg.ClientBase, tenant: TenantId) => Promise<void>;

  /** `deleteRecords` removes everything else of a tenant, inside the transaction of its delete. */
  constructor(pools: PostgresPools, deleteRecords: (client: pg.ClientBase, tenant: TenantId) => Promise<void>) {
    this.#pools = pools;
    this.#deleteRecords = deleteRecords;
  }

  async get(name: TenantId): Promise<TenantRecord | undefined> {
    const { rows } = await this.#pools.pool.query<TenantRow>(
      'SELECT name, incarnation, created_at, settings FROM tenants WHERE name = $1',
      [name],
    );
    return rows[0] && toTenant(rows[0]);
  }

  async list(): Promise<TenantRecord[]> {
    const { rows } = await this.#pools.pool.query<TenantRow>(
      'SELECT name, incarnation, created_at, settings FROM tenants ORDER BY name COLLATE "C"',
    );
    return rows.map(toTenant);
  }

  async create(tenant: TenantRecord): Promise<boolean> {
    const { rowCount } = await this.#pools.pool.query(
      'INSERT INTO tenants (name, incarnation, created_at, settings) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [tenant.name, tenant.incarnation, tenant.createdAt, JSON.stringify(tenant.settings)],
    );
    this.#pools.credentialWrites++;
    return rowCount === 1;
  }

  async updateSettings(name: TenantId, settings: TenantSettings): Promise<boolean> {
    const { rowCount } = await this.#pools.pool.query('UPDATE tenants SET settings = $1 WHERE name = $2', [
      JSON.stringify(settings),
      name,
    ]);
    this.#pools.credentialWrites++;
    return rowCount === 1;
  }

  async delete(name: TenantId): Promise<boolean> {
    return this.#pools.credentialWrite(() =>
      inTransaction(this.#pools.pool, async (client) => {
        const { rowCount } = await client.query('DELETE FROM tenants WHERE name = $1', [name]);
        if (rowCount === 0) return false;
        await this.#deleteRecords(client, name);
        return true;
      }),
    );
  }
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
