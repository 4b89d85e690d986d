import type pg from 'pg';
import { GLOBAL_TENANT, TenantGoneError, type TenantId } from '../../ports.js';
import { inTransaction } from './pg-connection.js';

/**
 * The metadata database's pools as its own stores (packages, tenants, users, tokens, sessions)
 * share them: reads on `pool`, transactions of writes on `writePool` (so slow publishes never
 * starve reads), and the count of credential writes made through them (credentialsVersion).
 */
export class PostgresPools {
  /** Writes of users, tokens or tenants through these pools, counted when each ends. */
  credentialWrites = 0;

  constructor(
    readonly pool: pg.Pool,
    readonly writePool: pg.Pool,
  ) {}

  /** Runs a write of credentials, counting it when it ends (failed or not: it may have committed). */
  async credentialWrite<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.credentialWrites++;
    }
  }

  /** A write of a tenant's rows in a transaction that holds the tenant's row (see requireLiveTenant). */
  async inLiveTenant<T>(tenant: TenantId, write: (db: pg.Pool | pg.ClientBase) => Promise<T>): Promise<T> {
    if (tenant === GLOBAL_TENANT) return write(this.pool);
    return inTransaction(this.writePool, async (client) => {
      await requireLiveTenant(client, tenant);
      return write(client);
    });
  }
}

/**
 * Inside a write transaction: the tenant's row, share-locked until the commit, or
 * TenantGoneError. The tenant's delete locks that row first, so it waits for this write to
 * commit and then deletes its rows too, or this waits for the delete and finds no row: nothing
 * is written to a tenant after its delete returned.
 */
export async function requireLiveTenant(client: pg.ClientBase, tenant: TenantId): Promise<void> {
  if (tenant === GLOBAL_TENANT) return;
  const { rowCount } = await client.query('SELECT 1 FROM tenants WHERE name = $1 FOR SHARE', [tenant]);
  if (rowCount === 0) throw new TenantGoneError(tenant);
}
