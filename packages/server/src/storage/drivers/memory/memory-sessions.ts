import type { SessionRecord, SessionStore, TenantId } from '../../ports.js';
import { copy, memoryKey, type MemoryDatabase } from './memory-database.js';

/** Sessions in a memory database, by tenant and hash. */
export class MemorySessions implements SessionStore {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  async create(tenant: TenantId, session: SessionRecord): Promise<void> {
    this.#db.requireLiveTenant(tenant);
    const k = memoryKey(tenant, session.hash);
    if (this.#db.sessions.has(k)) throw new Error('a session with this hash exists');
    this.#db.sessions.set(k, { tenant, record: copy(session) });
  }

  async get(tenant: TenantId, hash: string, now: string): Promise<SessionRecord | undefined> {
    const session = this.#db.sessions.get(memoryKey(tenant, hash));
    return session && session.record.expiresAt > now ? copy(session.record) : undefined;
  }

  async claim(tenant: TenantId, hash: string, user: string, now: string): Promise<boolean> {
    const session = this.#db.sessions.get(memoryKey(tenant, hash))?.record;
    if (!session || session.user !== null || session.expiresAt <= now) return false;
    session.user = user;
    return true;
  }

  async delete(tenant: TenantId, hash: string): Promise<boolean> {
    return this.#db.sessions.delete(memoryKey(tenant, hash));
  }

  async deleteExpired(now: string): Promise<number> {
    let deleted = 0;
    for (const [k, session] of this.#db.sessions) {
      if (session.record.expiresAt <= now && this.#db.sessions.delete(k)) deleted++;
    }
    return deleted;
  }
}
