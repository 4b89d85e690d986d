import type { TenantId, UserRecord, UserStore } from '../../ports.js';
import { compareBytes, copy, memoryKey, type MemoryDatabase } from './memory-database.js';

/** Users in a memory database; deleting one drops its tokens and sessions in the same turn. */
export class MemoryUsers implements UserStore {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  async get(tenant: TenantId, name: string): Promise<UserRecord | undefined> {
    const user = this.#db.users.get(memoryKey(tenant, name));
    return user && copy(user);
  }

  async create(tenant: TenantId, user: UserRecord): Promise<boolean> {
    this.#db.requireLiveTenant(tenant);
    if (this.#db.users.has(memoryKey(tenant, user.name))) return false;
    const stored = copy(user);
    // Not an administrator reads back absent, as the SQL drivers return it.
    if (stored.admin !== true) delete stored.admin;
    this.#db.users.set(memoryKey(tenant, user.name), stored);
    return true;
  }

  async delete(tenant: TenantId, name: string): Promise<boolean> {
    const db = this.#db;
    db.credentialWrites++;
    if (!db.users.delete(memoryKey(tenant, name))) return false;
    for (const [k, token] of db.tokens) if (token.tenant === tenant && token.record.user === name) db.tokens.delete(k);
    for (const [k, session] of db.sessions) if (session.tenant === tenant && session.record.user === name) db.sessions.delete(k);
    return true;
  }

  async update(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean> {
    this.#db.credentialWrites++;
    const user = this.#db.users.get(memoryKey(tenant, name));
    if (!user) return false;
    for (const [field, value] of Object.entries(patch)) {
      // A cleared second factor reads back absent, as the SQL drivers return it.
      if (field === 'secondFactor' && value === null) delete user.secondFactor;
      else if (field === 'admin' && value === false) delete user.admin;
      else if (value !== undefined && field !== 'name') (user as unknown as Record<string, unknown>)[field] = value;
    }
    return true;
  }

  async list(tenant: TenantId): Promise<UserRecord[]> {
    return [...this.#db.users.entries()]
      .filter(([k]) => k.startsWith(`${tenant}\0`))
      .map(([, user]) => copy(user))
      .sort((a, b) => compareBytes(a.name, b.name));
  }
}
