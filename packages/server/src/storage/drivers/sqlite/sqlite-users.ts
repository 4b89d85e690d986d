import type { SecondFactor, TenantId, UserRecord, UserStore } from '../../ports.js';
import type { SqliteConnection } from './sqlite-connection.js';

const USER_COLUMNS = 'name, email, password_hash, created_at, disabled, second_factor, admin';

/** Users in the SQLite database; deleting one deletes its tokens and sessions in the same transaction. */
export class SqliteUsers implements UserStore {
  readonly #connection: SqliteConnection;

  constructor(connection: SqliteConnection) {
    this.#connection = connection;
  }

  async get(tenant: TenantId, name: string): Promise<UserRecord | undefined> {
    const row = this.#connection
      .statement(`SELECT ${USER_COLUMNS} FROM users WHERE tenant = ? AND name = ?`)
      .get(tenant, name) as UserRow | undefined;
    return row && toUser(row);
  }

  async create(tenant: TenantId, user: UserRecord): Promise<boolean> {
    return this.#connection.inLiveTenant(tenant, () => {
      const info = this.#connection
        .statement(
          'INSERT INTO users (tenant, name, email, password_hash, created_at, disabled, second_factor, admin) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
        )
        .run(
          tenant,
          user.name,
          user.email,
          user.passwordHash,
          user.createdAt,
          user.disabled ? 1 : 0,
          user.secondFactor ? JSON.stringify(user.secondFactor) : null,
          user.admin === true ? 1 : 0,
        );
      return info.changes === 1;
    });
  }

  async update(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean> {
    this.#connection.credentialWrites++;
    const columns: Record<string, string> = {
      email: 'email',
      passwordHash: 'password_hash',
      createdAt: 'created_at',
      disabled: 'disabled',
      secondFactor: 'second_factor',
      admin: 'admin',
    };
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      const column = columns[key];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = ?`);
      values.push(
        typeof value === 'boolean' ? (value ? 1 : 0) : key === 'secondFactor' && value !== null ? JSON.stringify(value) : value,
      );
    }
    if (sets.length === 0) return (await this.get(tenant, name)) !== undefined;
    const info = this.#connection
      .statement(`UPDATE users SET ${sets.join(', ')} WHERE tenant = ? AND name = ?`)
      .run(...values, tenant, name);
    return info.changes === 1;
  }

  async list(tenant: TenantId): Promise<UserRecord[]> {
    const rows = this.#connection
      .statement(`SELECT ${USER_COLUMNS} FROM users WHERE tenant = ? ORDER BY name`)
      .all(tenant) as UserRow[];
    return rows.map(toUser);
  }

  async delete(tenant: TenantId, name: string): Promise<boolean> {
    this.#connection.credentialWrites++;
    return this.#connection.db
      .transaction(() => {
        const info = this.#connection.statement('DELETE FROM users WHERE tenant = ? AND name = ?').run(tenant, name);
        if (info.changes === 0) return false;
        this.#connection.statement('DELETE FROM tokens WHERE tenant = ? AND user = ?').run(tenant, name);
        this.#connection.statement('DELETE FROM sessions WHERE tenant = ? AND user = ?').run(tenant, name);
        return true;
      })
      .immediate();
  }
}

interface UserRow {
  name: string;
  email: string;
  password_hash: string;
  created_at: string;
  disabled: number;
  second_factor: string | null;
  admin: number;
}

function toUser(row: UserRow): UserRecord {
  return {
    name: row.name,
    email: row.email,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    disabled: row.disabled === 1,
    ...(row.second_factor !== null ? { secondFactor: JSON.parse(row.second_factor) as SecondFactor } : {}),
    ...(row.admin === 1 ? { admin: true } : {}),
  };
}
