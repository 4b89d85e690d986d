import type { TenantId, TokenRecord, TokenScope, TokenStore, TokenUse } from '../../ports.js';
import type { SqliteConnection } from './sqlite-connection.js';

const TOKEN_COLUMNS = 'hash, user, created_at, expires_at, readonly, prefix, scope, last_used_at, last_address';

/** Tokens in the SQLite database, by tenant and hash. */
export class SqliteTokens implements TokenStore {
  readonly #connection: SqliteConnection;

  constructor(connection: SqliteConnection) {
    this.#connection = connection;
  }

  async create(tenant: TenantId, token: TokenRecord): Promise<void> {
    this.#connection.inLiveTenant(tenant, () =>
      this.#connection
        .statement(
          'INSERT INTO tokens (tenant, hash, user, created_at, expires_at, readonly, prefix, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          tenant,
          token.hash,
          token.user,
          token.createdAt,
          token.expiresAt,
          token.readonly ? 1 : 0,
          token.prefix ?? null,
          token.scope ? JSON.stringify(token.scope) : null,
        ),
    );
  }

  async get(tenant: TenantId, hash: string): Promise<TokenRecord | undefined> {
    const row = this.#connection
      .statement(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = ? AND hash = ?`)
      .get(tenant, hash) as TokenRow | undefined;
    return row && toToken(row);
  }

  async list(tenant: TenantId): Promise<TokenRecord[]> {
    const rows = this.#connection
      .statement(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = ? ORDER BY hash`)
      .all(tenant) as TokenRow[];
    return rows.map(toToken);
  }

  async listOfUser(tenant: TenantId, user: string): Promise<TokenRecord[]> {
    const rows = this.#connection
      .statement(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE tenant = ? AND user = ? ORDER BY created_at DESC, hash`)
      .all(tenant, user) as TokenRow[];
    return rows.map(toToken);
  }

  async delete(tenant: TenantId, hash: string): Promise<boolean> {
    this.#connection.credentialWrites++;
    return this.#connection.statement('DELETE FROM tokens WHERE tenant = ? AND hash = ?').run(tenant, hash).changes === 1;
  }

  async deleteOfUser(tenant: TenantId, user: string): Promise<number> {
    this.#connection.credentialWrites++;
    return this.#connection.statement('DELETE FROM tokens WHERE tenant = ? AND user = ?').run(tenant, user).changes;
  }

  async recordUses(tenant: TenantId, uses: TokenUse[]): Promise<void> {
    const update = this.#connection.statement(
      'UPDATE tokens SET last_used_at = ?, last_address = ? WHERE tenant = ? AND hash = ?',
    );
    this.#connection.db.transaction(() => {
      for (const use of uses) update.run(use.at, use.address, tenant, use.hash);
    })();
  }
}

interface TokenRow {
  hash: string;
  user: string;
  created_at: string;
  expires_at: string | null;
  readonly: number;
  prefix: string | null;
  scope: string | null;
  last_used_at: string | null;
  last_address: string | null;
}

function toToken(row: TokenRow): TokenRecord {
  return {
    hash: row.hash,
    user: row.user,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    readonly: row.readonly === 1,
    ...(row.prefix !== null ? { prefix: row.prefix } : {}),
    ...(row.scope !== null ? { scope: JSON.parse(row.scope) as TokenScope } : {}),
    ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
    ...(row.last_address !== null ? { lastAddress: row.last_address } : {}),
  };
}
