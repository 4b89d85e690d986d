import type { TenantId, TokenRecord, TokenScope, TokenStore, TokenUse } from '../../ports.js';
import type { PostgresPools } from './postgres-pools.js';

const TOKEN_COLUMNS = 'hash, user_name, created_at, expires_at, readonly, prefix, scope, last_used_at, last_address';

/** Tokens in PostgreSQL, by tenant and hash. */
export class PostgresTokens implements TokenStore {
  readonly #pools: PostgresPools;

  constructor(pools: PostgresPools) {
    this.#pools = pools;
  }

  async create(tenant: TenantId, token: TokenRecord): Promise<void> {
    await this.#pools.inLiveTenant(tenant, (db) =>
      db.query(
        'INSERT INTO tokens (tenant, hash, user_name, created_at, expires_at, readonly, prefix, scope) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [
          tenant,
          token.hash,
          token.user,
          token.createdAt,
          token.expiresAt,
          token.readonly,
          token.prefix ?? null,
          token.scope ? JSON.stringify(token.scope) : null,
        ],
      ),
    );
  }

  async get(tenant: TenantId, hash: string): Promise<TokenRecord | undefined> {
    const { rows } = await this.#pools.pool.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = $1 AND hash = $2`,
      [tenant, hash],
    );
    return rows[0] && toToken(rows[0]);
  }

  async list(tenant: TenantId): Promise<TokenRecord[]> {
    const { rows } = await this.#pools.pool.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = $1 ORDER BY hash COLLATE "C"`,
      [tenant],
    );
    return rows.map(toToken);
  }

  async listOfUser(tenant: TenantId, user: string): Promise<TokenRecord[]> {
    const { rows } = await this.#pools.pool.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = $1 AND user_name = $2
       ORDER BY created_at COLLATE "C" DESC, hash COLLATE "C"`,
      [tenant, user],
    );
    return rows.map(toToken);
  }

  async recordUses(tenant: TenantId, uses: TokenUse[]): Promise<void> {
    if (uses.length === 0) return;
    // One statement per batch; a hash named twice would update its row with either use, so
    // callers send each token once.
    await this.#pools.pool.query(
      `UPDATE tokens AS t SET last_used_at = u.at, last_address = u.address
         FROM unnest($2::text[], $3::text[], $4::text[]) AS u(hash, at, address)
        WHERE t.tenant = $1 AND t.hash = u.hash`,
      [tenant, uses.map((use) => use.hash), uses.map((use) => use.at), uses.map((use) => use.address)],
    );
  }

  async delete(tenant: TenantId, hash: string): Promise<boolean> {
    return this.#pools.credentialWrite(async () => {
      const { rowCount } = await this.#pools.pool.query('DELETE FROM tokens WHERE tenant = $1 AND hash = $2', [tenant, hash]);
      return rowCount === 1;
    });
  }

  async deleteOfUser(tenant: TenantId, user: string): Promise<number> {
    return this.#pools.credentialWrite(async () => {
      const { rowCount } = await this.#pools.pool.query('DELETE FROM tokens WHERE tenant = $1 AND user_name = $2', [
        tenant,
        user,
      ]);
      return rowCount ?? 0;
    });
  }
}

interface TokenRow {
  hash: string;
  user_name: string;
  created_at: string;
  expires_at: string | null;
  readonly: boolean;
  prefix: string | null;
  scope: TokenScope | null;
  last_used_at: string | null;
  last_address: string | null;
}

function toToken(row: TokenRow): TokenRecord {
  return {
    hash: row.hash,
    user: row.user_name,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    readonly: row.readonly,
    ...(row.prefix !== null ? { prefix: row.prefix } : {}),
    ...(row.scope !== null ? { scope: row.scope } : {}),
    ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
    ...(row.last_address !== null ? { lastAddress: row.last_address } : {}),
  };
}
