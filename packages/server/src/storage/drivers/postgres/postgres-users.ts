import type { SecondFactor, TenantId, UserRecord, UserStore } from '../../ports.js';
import { inTransaction } from './pg-connection.js';
import type { PostgresPools } from './postgres-pools.js';

const USER_COLUMNS = 'name, email, password_hash, created_at, disabled, second_factor, admin';

/** Users in PostgreSQL; deleting one deletes its tokens and sessions in the same transaction. */
export class PostgresUsers implements UserStore {
  readonly #pools: PostgresPools;

  constructor(pools: PostgresPools) {
    this.#pools = pools;
  }

  async get(tenant: TenantId, name: string): Promise<UserRecord | undefined> {
    const { rows } = await this.#pools.pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE tenant = $1 AND name = $2`, [
      tenant,
      name,
    ]);
    return rows[0] && toUser(rows[0]);
  }

  async create(tenant: TenantId, user: UserRecord): Promise<boolean> {
    const { rowCount } = await this.#pools.inLiveTenant(tenant, (db) =>
      db.query(
        `INSERT INTO users (tenant, name, email, password_hash, created_at, disabled, second_factor, admin)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [
          tenant,
          user.name,
          user.email,
          user.passwordHash,
          user.createdAt,
          user.disabled,
          user.secondFactor ? JSON.stringify(user.secondFactor) : null,
          user.admin === true,
        ],
      ),
    );
    return rowCount === 1;
  }

  async update(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean> {
    return this.#pools.credentialWrite(() => this.#update(tenant, name, patch));
  }

  async #update(tenant: TenantId, name: string, patch: Partial<Omit<UserRecord, 'name'>>): Promise<boolean> {
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
      values.push(key === 'secondFactor' && value !== null ? JSON.stringify(value) : value);
      sets.push(`${column} = $${values.length}`);
    }
    if (sets.length === 0) return (await this.get(tenant, name)) !== undefined;
    values.push(tenant, name);
    const { rowCount } = await this.#pools.pool.query(
      `UPDATE users SET ${sets.join(', ')} WHERE tenant = $${values.length - 1} AND name = $${values.length}`,
      values,
    );
    return rowCount === 1;
  }

  async list(tenant: TenantId): Promise<UserRecord[]> {
    const { rows } = await this.#pools.pool.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users WHERE tenant = $1 ORDER BY name COLLATE "C"`,
      [tenant],
    );
    return rows.map(toUser);
  }

  async delete(tenant: TenantId, name: string): Promise<boolean> {
    return this.#pools.credentialWrite(() =>
      inTransaction(this.#pools.pool, async (client) => {
        const { rowCount } = await client.query('DELETE FROM users WHERE tenant = $1 AND name = $2', [tenant, name]);
        if (rowCount === 0) return false;
        await client.query('DELETE FROM tokens WHERE tenant = $1 AND user_name = $2', [tenant, name]);
        await client.query('DELETE FROM sessions WHERE tenant = $1 AND user_name = $2', [tenant, name]);
        return true;
      }),
    );
  }
}

interface UserRow {
  name: string;
  email: string;
  password_hash: string;
  created_at: string;
  disabled: boolean;
  second_factor: string | null;
  admin: boolean;
}

function toUser(row: UserRow): UserRecord {
  return {
    name: row.name,
    email: row.email,
    passwordHash: row.password_hash,
    createdAt: row.created_at,
    disabled: row.disabled,
    ...(row.second_factor !== null ? { secondFactor: JSON.parse(row.second_factor) as SecondFactor } : {}),
    ...(row.admin === true ? { admin: true } : {}),
  };
}
