import type { SessionRecord, SessionStore, TenantId } from '../../ports.js';
import type { PostgresPools } from './postgres-pools.js';

/** Sessions in PostgreSQL, by tenant and hash. */
export class PostgresSessions implements SessionStore {
  readonly #pools: PostgresPools;

  constructor(pools: PostgresPools) {
    this.#pools = pools;
  }

  async create(tenant: TenantId, session: SessionRecord): Promise<void> {
    await this.#pools.inLiveTenant(tenant, (db) =>
      db.query(
        `INSERT INTO sessions (tenant, hash, kind, user_name, data, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [tenant, session.hash, session.kind, session.user, JSON.stringify(session.data), session.createdAt, session.expiresAt],
      ),
    );
  }

  async get(tenant: TenantId, hash: string, now: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.#pools.pool.query<SessionRow>(
      `SELECT hash, kind, user_name, data, created_at, expires_at FROM sessions
       WHERE tenant = $1 AND hash = $2 AND expires_at COLLATE "C" > $3`,
      [tenant, hash, now],
    );
    const row = rows[0];
    return (
      row && {
        hash: row.hash,
        kind: row.kind,
        user: row.user_name,
        data: row.data,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async claim(tenant: TenantId, hash: string, user: string, now: string): Promise<boolean> {
    const { rowCount } = await this.#pools.pool.query(
      `UPDATE sessions SET user_name = $1
       WHERE tenant = $2 AND hash = $3 AND user_name IS NULL AND expires_at COLLATE "C" > $4`,
      [user, tenant, hash, now],
    );
    return rowCount === 1;
  }

  async delete(tenant: TenantId, hash: string): Promise<boolean> {
    const { rowCount } = await this.#pools.pool.query('DELETE FROM sessions WHERE tenant = $1 AND hash = $2', [tenant, hash]);
    return rowCount === 1;
  }

  async deleteExpired(now: string): Promise<number> {
    const { rowCount } = await this.#pools.pool.query('DELETE FROM sessions WHERE expires_at COLLATE "C" <= $1', [now]);
    return rowCount ?? 0;
  }
}

interface SessionRow {
  hash: string;
  kind: string;
  user_name: string | null;
  data: Record<string, unknown>;
  created_at: string;
  expires_at: string;
}
