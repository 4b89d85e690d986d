import type { SessionRecord, SessionStore, TenantId } from '../../ports.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Sessions in the SQLite database, by tenant and hash. */
export class SqliteSessions implements SessionStore {
  readonly #connection: SqliteConnection;

  constructor(connection: SqliteConnection) {
    this.#connection = connection;
  }

  async create(tenant: TenantId, session: SessionRecord): Promise<void> {
    this.#connection.inLiveTenant(tenant, () =>
      this.#connection
        .statement('INSERT INTO sessions (tenant, hash, kind, user, data, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(
          tenant,
          session.hash,
          session.kind,
          session.user,
          JSON.stringify(session.data),
          session.createdAt,
          session.expiresAt,
        ),
    );
  }

  async get(tenant: TenantId, hash: string, now: string): Promise<SessionRecord | undefined> {
    const row = this.#connection
      .statement(
        'SELECT hash, kind, user, data, created_at, expires_at FROM sessions WHERE tenant = ? AND hash = ? AND expires_at > ?',
      )
      .get(tenant, hash, now) as SessionRow | undefined;
    return (
      row && {
        hash: row.hash,
        kind: row.kind,
        user: row.user,
        data: JSON.parse(row.data) as Record<string, unknown>,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async claim(tenant: TenantId, hash: string, user: string, now: string): Promise<boolean> {
    const info = this.#connection
      .statement('UPDATE sessions SET user = ? WHERE tenant = ? AND hash = ? AND user IS NULL AND expires_at > ?')
      .run(user, tenant, hash, now);
    return info.changes === 1;
  }

  async delete(tenant: TenantId, hash: string): Promise<boolean> {
    return this.#connection.statement('DELETE FROM sessions WHERE tenant = ? AND hash = ?').run(tenant, hash).changes === 1;
  }

  async deleteExpired(now: string): Promise<number> {
    return this.#connection.statement('DELETE FROM sessions WHERE expires_at <= ?').run(now).changes;
  }
}

interface SessionRow {
  hash: string;
  kind: string;
  user: string | null;
  data: string;
  created_at: string;
  expires_at: string;
}
