import type Database from 'better-sqlite3';
import type { SigningKeyRecord, SigningKeyStore, TenantId } from '../../ports.js';
import { AttachedDatabase } from './attached-database.js';
import type { SqlitePackageWriteHook } from './sqlite-metadata-store.js';

type Db = Database.Database;

export const SIGNING_KEY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE signing_keys (
    tenant TEXT NOT NULL,
    keyid TEXT NOT NULL,
    private_key TEXT NOT NULL,
    public_key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    PRIMARY KEY (tenant, keyid)
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX signing_keys_in_use ON signing_keys (tenant) WHERE expires_at IS NULL;
  CREATE TABLE signing_backfills (
    tenant TEXT PRIMARY KEY,
    done_at TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
];

interface Row {
  keyid: string;
  private_key: string;
  public_key: string;
  created_at: string;
  expires_at: string | null;
}

/** Signing keys in the SQLite database, beside the documents they sign. */
export class SqliteSigningKeys implements SigningKeyStore {
  readonly #db = new AttachedDatabase('SqliteSigningKeys');

  readonly writeHook: SqlitePackageWriteHook = {
    name: 'signing-keys',
    migrations: SIGNING_KEY_MIGRATIONS,
    onWrite: () => undefined,
    onTenantDelete: (db, tenant) => {
      db.prepare('DELETE FROM signing_keys WHERE tenant = ?').run(tenant);
      db.prepare('DELETE FROM signing_backfills WHERE tenant = ?').run(tenant);
    },
  };

  attach(db: Db): void {
    this.#db.attach(db);
  }

  async list(tenant: TenantId): Promise<SigningKeyRecord[]> {
    const rows = this.#db
      .statement(
        'SELECT keyid, private_key, public_key, created_at, expires_at FROM signing_keys WHERE tenant = ? ORDER BY created_at, keyid',
      )
      .all(tenant) as Row[];
    return rows.map(fromRow);
  }

  /** One statement: a tenant deleted meanwhile gets nothing; the partial unique index settles a race. */
  async createIfNone(tenant: TenantId, key: SigningKeyRecord): Promise<boolean> {
    const result = this.#db
      .statement(
        `INSERT OR IGNORE INTO signing_keys (tenant, keyid, private_key, public_key, created_at, expires_at)
         SELECT ?, ?, ?, ?, ?, NULL WHERE ? = '' OR EXISTS (SELECT 1 FROM tenants WHERE name = ?)`,
      )
      .run(tenant, key.keyid, key.privateKey, key.publicKey, key.createdAt, tenant, tenant);
    return result.changes === 1;
  }

  async copy(tenant: TenantId, key: SigningKeyRecord): Promise<boolean> {
    const result = this.#db
      .statement(
        `INSERT OR IGNORE INTO signing_keys (tenant, keyid, private_key, public_key, created_at, expires_at)
         SELECT ?, ?, ?, ?, ?, ? WHERE ? = '' OR EXISTS (SELECT 1 FROM tenants WHERE name = ?)`,
      )
      .run(tenant, key.keyid, key.privateKey, key.publicKey, key.createdAt, key.expiresAt, tenant, tenant);
    return result.changes === 1;
  }

  async rotate(tenant: TenantId, key: SigningKeyRecord, expiresAt: string): Promise<void> {
    const db = this.#db.require();
    db.transaction(() => {
      db.prepare('UPDATE signing_keys SET expires_at = ? WHERE tenant = ? AND expires_at IS NULL').run(expiresAt, tenant);
      db.prepare(
        `INSERT INTO signing_keys (tenant, keyid, private_key, public_key, created_at, expires_at)
         SELECT ?, ?, ?, ?, ?, NULL WHERE ? = '' OR EXISTS (SELECT 1 FROM tenants WHERE name = ?)`,
      ).run(tenant, key.keyid, key.privateKey, key.publicKey, key.createdAt, tenant, tenant);
    }).immediate();
  }

  async backfilled(tenant: TenantId): Promise<boolean> {
    return this.#db.statement('SELECT 1 FROM signing_backfills WHERE tenant = ?').get(tenant) !== undefined;
  }

  async markBackfilled(tenant: TenantId, at: string): Promise<void> {
    this.#db
      .statement(
        `INSERT OR IGNORE INTO signing_backfills (tenant, done_at)
         SELECT ?, ? WHERE ? = '' OR EXISTS (SELECT 1 FROM tenants WHERE name = ?)`,
      )
      .run(tenant, at, tenant, tenant);
  }
}

function fromRow(row: Row): SigningKeyRecord {
  return {
    keyid: row.keyid,
    privateKey: row.private_key,
    publicKey: row.public_key,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
