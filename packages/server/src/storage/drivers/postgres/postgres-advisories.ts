import type pg from 'pg';
import { inTransaction } from './pg-connection.js';
import type { AdvisoryRecord, AdvisoryStore, TenantId } from '../../ports.js';
import { tenantTableHook, type PostgresPackageWriteHook } from './postgres-metadata-store.js';
import { byName, sorted } from '../../advisory-order.js';

export const POSTGRES_ADVISORY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE advisories (
    tenant text NOT NULL,
    name text NOT NULL,
    id text NOT NULL,
    record text NOT NULL,
    withdrawn boolean NOT NULL,
    PRIMARY KEY (tenant, name, id)
  );
  `,
];

/** Advisories in PostgreSQL: every node answers audits from the same ones. */
export class PostgresAdvisories implements AdvisoryStore {
  #pool: pg.Pool | undefined;

  readonly writeHook: PostgresPackageWriteHook = tenantTableHook('advisories', POSTGRES_ADVISORY_MIGRATIONS, 'advisories');

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async list(tenant: TenantId, name: string): Promise<AdvisoryRecord[]> {
    const { rows } = await this.#requirePool().query<{ record: string }>(
      'SELECT record FROM advisories WHERE tenant = $1 AND name = $2',
      [tenant, name],
    );
    return sorted(rows.map((row) => JSON.parse(row.record) as AdvisoryRecord));
  }

  async inForce(tenant: TenantId, names: readonly string[]): Promise<Map<string, AdvisoryRecord[]>> {
    const { rows } = await this.#requirePool().query<{ record: string }>(
      'SELECT record FROM advisories WHERE tenant = $1 AND NOT withdrawn AND name = ANY($2::text[])',
      [tenant, [...names]],
    );
    return byName(rows.map((row) => JSON.parse(row.record) as AdvisoryRecord));
  }

  async listAll(tenant: TenantId): Promise<AdvisoryRecord[]> {
    const { rows } = await this.#requirePool().query<{ record: string }>('SELECT record FROM advisories WHERE tenant = $1', [
      tenant,
    ]);
    return sorted(rows.map((row) => JSON.parse(row.record) as AdvisoryRecord));
  }

  async put(tenant: TenantId, advisory: AdvisoryRecord): Promise<void> {
    await inTransaction(this.#requirePool(), async (client) => {
      if (tenant !== '' && (await client.query('SELECT 1 FROM tenants WHERE name = $1 FOR SHARE', [tenant])).rowCount === 0)
        return;
      await client.query(
        `INSERT INTO advisories (tenant, name, id, record, withdrawn) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant, name, id) DO UPDATE SET record = excluded.record, withdrawn = excluded.withdrawn`,
        [tenant, advisory.name, advisory.id, JSON.stringify(advisory), advisory.withdrawnAt !== null],
      );
    });
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresAdvisories is not attached to a pool');
    return this.#pool;
  }
}
