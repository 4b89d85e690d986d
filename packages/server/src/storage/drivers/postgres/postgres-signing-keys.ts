import type pg from 'pg';
import { inTransaction } from './pg-connection.js';
import type { SigningKeyRecord, SigningKeyStore, TenantId } from '../../ports.js';
import type { PostgresPackageWriteHook } from './postgres-metadata-store.js';

export const POSTGRES_SIGNING_KEY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE signing_keys (
    tenant text NOT NULL,
    keyid text NOT NULL,
    private_key text NOT NULL,
    public_key text NOT NULL,
    created_at text NOT NULL,
    expires_at text,
    PRIMARY KEY (tenant, keyid)
  );
  CREATE UNIQUE INDEX signing_keys_in_use ON signing_keys (tenant) WHERE expires_at IS NULL;
  CREATE TABLE signing_backfills (
    tenant text PRIMARY KEY,
    done_at text NOT NULL
  );
  `,
];

interface Row {
  keyid: string;
  private_key: string;
  public_key: string;
  created_at: string;
  expires_at: string | null;
}

/** Signing keys in PostgreSQL: every node signs with the same key. */
export class PostgresSigningKeys implements SigningKeyStore {
  #pool: pg.Pool | undefined;

  readonly writeHook: PostgresPackageWriteHook = {
    name: 'signing-keys',
    migrations: POSTGRES_SIGNING_KEY_MIGRATIONS,
    onWrite: async () => undefined,
    onTenantDelete: async (client, tenant) => {
      await client.query('DELETE FROM signing_keys WHERE tenant = $1', [tenant]);
      await client.query('DELETE FROM signing_backfills WHERE tenant = $1', [tenant]);
    },
  };

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async list(tenant: TenantId): Promise<SigningKeyRecord[]> {
    const { rows } = await this.#requirePool().query<Row>(
      'SELECT keyid, private_key, public_key, created_at, expires_at FROM signing_keys WHERE tenant = $1 ORDER BY created_at, keyid',
      [tenant],
    );
    return rows.map(fromRow);
  }

  /** The tenant's row is share-locked, as every tenant write does; the partial unique index settles a race. */
  async createIfNone(tenant: TenantId, key: SigningKeyRecord): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      if (!(await tenantExists(client, tenant))) return false;
      const result = await client.query(
        `INSERT INTO signing_keys (tenant, keyid, private_key, public_key, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, NULL) ON CONFLICT DO NOTHING`,
        [tenant, key.keyid, key.privateKey, key.publicKey, key.createdAt],
      );
      return result.rowCount === 1;
    });
  }

  async copy(tenant: TenantId, key: SigningKeyRecord): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      if (!(await tenantExists(client, tenant))) return false;
      const result = await client.query(
        `INSERT INTO signing_keys (tenant, keyid, private_key, public_key, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
        [tenant, key.keyid, key.privateKey, key.publicKey, key.createdAt, key.expiresAt],
      );
      return result.rowCount === 1;
    });
  }

  async rotate(tenant: TenantId, key: SigningKeyRecord, expiresAt: string): Promise<void> {
    await inTransaction(this.#requirePool(), async (client) => {
      if (!(await tenantExists(client, tenant))) return;
      await client.query('UPDATE signing_keys SET expires_at = $1 WHERE tenant = $2 AND expires_at IS NULL', [expiresAt, tenant]);
      await client.query(
        `INSERT INTO signing_keys (tenant, keyid, private_key, public_key, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, NULL)`,
        [tenant, key.keyid, key.privateKey, key.publicKey, key.createdAt],
      );
    });
  }

  async backfilled(tenant: TenantId): Promise<boolean> {
    const { rowCount } = await this.#requirePool().query('SELECT 1 FROM signing_backfills WHERE tenant = $1', [tenant]);
    return rowCount === 1;
  }

  async markBackfilled(tenant: TenantId, at: string): Promise<void> {
    await inTransaction(this.#requirePool(), async (client) => {
      if (!(await tenantExists(client, tenant))) return;
      await client.query('INSERT INTO signing_backfills (tenant, done_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [tenant, at]);
    });
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresSigningKeys is not attached to a pool');
    return this.#pool;
  }
}

async function tenantExists(client: pg.ClientBase, tenant: TenantId): Promise<boolean> {
  if (tenant === '') return true;
  return (await client.query('SELECT 1 FROM tenants WHERE name = $1 FOR SHARE', [tenant])).rowCount === 1;
}

function fromRow(row: Row): SigningKeyRecord {
  return {
    keyid: row.keyid,
    privateKey: row.private_key,
    publicKey: row.public_key,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
