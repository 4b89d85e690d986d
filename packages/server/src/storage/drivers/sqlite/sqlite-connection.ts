import type Database from 'better-sqlite3';
import { GLOBAL_TENANT, TenantGoneError, type TenantId } from '../../ports.js';

type Db = Database.Database;

/**
 * The metadata database's connection as its own stores (packages, tenants, users, tokens,
 * sessions) share it: statements prepared once, the check that a write's tenant still exists,
 * and the count of credential writes made through it (credentialsVersion).
 */
export class SqliteConnection {
  readonly #statements = new Map<string, Database.Statement>();
  /** Writes of users, tokens or tenants through this connection. */
  credentialWrites = 0;

  constructor(readonly db: Db) {}

  /** `sql` prepared once per text: preparing costs more than running most of them. */
  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs a write in an IMMEDIATE transaction that first checks the tenant still exists: the
   * tenant's delete is one such transaction too, so a write lands before it (and is deleted
   * with the tenant) or fails with TenantGoneError after it.
   */
  inLiveTenant<T>(tenant: TenantId, write: () => T): T {
    if (tenant === GLOBAL_TENANT) return write();
    return this.db
      .transaction(() => {
        this.requireLiveTenant(tenant);
        return write();
      })
      .immediate();
  }

  requireLiveTenant(tenant: TenantId): void {
    if (tenant === GLOBAL_TENANT) return;
    if (this.statement('SELECT 1 FROM tenants WHERE name = ?').get(tenant) === undefined) throw new TenantGoneError(tenant);
  }
}
