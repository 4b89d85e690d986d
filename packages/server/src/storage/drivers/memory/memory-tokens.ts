import type { TenantId, TokenRecord, TokenStore, TokenUse } from '../../ports.js';
import { compareBytes, copy, memoryKey, type MemoryDatabase } from './memory-database.js';

/** Tokens in a memory database, by tenant and hash. */
export class MemoryTokens implements TokenStore {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  async create(tenant: TenantId, token: TokenRecord): Promise<void> {
    this.#db.requireLiveTenant(tenant);
    const k = memoryKey(tenant, token.hash);
    if (this.#db.tokens.has(k)) throw new Error('a token with this hash exists');
    this.#db.tokens.set(k, { tenant, record: copy(token) });
  }

  async get(tenant: TenantId, hash: string): Promise<TokenRecord | undefined> {
    const token = this.#db.tokens.get(memoryKey(tenant, hash));
    return token && copy(token.record);
  }

  async list(tenant: TenantId): Promise<TokenRecord[]> {
    return this.#tokensOf(tenant).sort((a, b) => compareBytes(a.hash, b.hash));
  }

  async listOfUser(tenant: TenantId, user: string): Promise<TokenRecord[]> {
    return this.#tokensOf(tenant)
      .filter((token) => token.user === user)
      .sort((a, b) => compareBytes(b.createdAt, a.createdAt) || compareBytes(a.hash, b.hash));
  }

  async delete(tenant: TenantId, hash: string): Promise<boolean> {
    this.#db.credentialWrites++;
    return this.#db.tokens.delete(memoryKey(tenant, hash));
  }

  async deleteOfUser(tenant: TenantId, user: string): Promise<number> {
    this.#db.credentialWrites++;
    let deleted = 0;
    for (const [k, token] of this.#db.tokens) {
      if (token.tenant === tenant && token.record.user === user && this.#db.tokens.delete(k)) deleted++;
    }
    return deleted;
  }

  async recordUses(tenant: TenantId, uses: TokenUse[]): Promise<void> {
    for (const use of uses) {
      const token = this.#db.tokens.get(memoryKey(tenant, use.hash));
      if (token) token.record = { ...token.record, lastUsedAt: use.at, lastAddress: use.address };
    }
  }

  #tokensOf(tenant: TenantId): TokenRecord[] {
    return [...this.#db.tokens.values()].filter((token) => token.tenant === tenant).map((token) => copy(token.record));
  }
}
