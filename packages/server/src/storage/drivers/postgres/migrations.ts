import type pg from 'pg';
import { registryRelease } from '../../../release.js';
import { assertDataNotNewer, type MigrationLog } from '../../schema-history.js';

/**
 * Versioned schema of the PostgreSQL metadata store. Append only: a released migration never
 * changes; a new one is added at the end. Times are kept as the ISO strings the services
 * write, so both drivers return exactly what was stored.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tenants (
    name text PRIMARY KEY,
    created_at text NOT NULL,
    settings json NOT NULL DEFAULT '{}'
  );
  CREATE TABLE users (
    tenant text NOT NULL,
    name text NOT NULL,
    email text NOT NULL,
    password_hash text NOT NULL,
    created_at text NOT NULL,
    disabled boolean NOT NULL DEFAULT false,
    PRIMARY KEY (tenant, name)
  );
  CREATE TABLE tokens (
    tenant text NOT NULL,
    hash text NOT NULL,
    user_name text NOT NULL,
    created_at text NOT NULL,
    expires_at text,
    readonly boolean NOT NULL DEFAULT false,
    PRIMARY KEY (tenant, hash)
  );
  CREATE INDEX tokens_by_user ON tokens (tenant, user_name);
  -- json, not jsonb: a document keeps its key order (versions, time) exactly as written.
  CREATE TABLE packages (
    tenant text NOT NULL,
    name text NOT NULL,
    document json NOT NULL,
    published_versions json NOT NULL,
    unpublished boolean NOT NULL DEFAULT false,
    write_count bigint NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, name)
  );
  `,
  // Web interface: browser sign-in and npm web-login sessions; a recognisable token prefix.
  `
  CREATE TABLE sessions (
    tenant text NOT NULL,
    hash text NOT NULL,
    kind text NOT NULL,
    user_name text,
    data json NOT NULL DEFAULT '{}',
    created_at text NOT NULL,
    expires_at text NOT NULL,
    PRIMARY KEY (tenant, hash)
  );
  CREATE INDEX sessions_by_expiry ON sessions (expires_at);
  ALTER TABLE tokens ADD COLUMN prefix text;
  `,
  // Tenant incarnations (issue 26): a tenant deleted and created again under the same name is
  // another tenant to every cache. Tenants of the previous release get one each.
  `
  ALTER TABLE tenants ADD COLUMN incarnation text NOT NULL DEFAULT '';
  UPDATE tenants SET incarnation = md5(random()::text || clock_timestamp()::text || name);
  `,
  // Scoped tokens (npm's token API): limits as JSON, and the last use.
  `
  ALTER TABLE tokens ADD COLUMN scope json;
  ALTER TABLE tokens ADD COLUMN last_used_at text;
  ALTER TABLE tokens ADD COLUMN last_address text;
  `,
  // Two-factor sign-in: the user's TOTP enrolment as JSON.
  `
  ALTER TABLE users ADD COLUMN second_factor text;
  `,
  // Administrators of a registry (issue 26): a flag per user.
  `
  ALTER TABLE users ADD COLUMN admin boolean NOT NULL DEFAULT false;
  `,
];

/**
 * A schema change (SQL), or a change of derived data that SQL cannot compute (a function, run
 * on the migrating session inside the migrations' transaction, search_path on the schema).
 */
export type PostgresMigration = string | ((client: pg.ClientBase) => Promise<void>);

/** Advisory-lock namespace of this application ('pkgr'), so its locks never meet another's. */
export const LOCK_NAMESPACE = 0x706b6772;
const MIGRATION_LOCK = 1;

/**
 * Applies the migrations not yet recorded, in one transaction under an advisory lock, so
 * several processes starting at once apply each migration exactly once and none sees a
 * half-built schema. The lock is database-wide: creating extensions must not race either.
 */
export async function applyMigrations(
  client: pg.ClientBase,
  schema: string,
  scopes: readonly (readonly [scope: string, migrations: readonly PostgresMigration[]])[],
  log?: MigrationLog,
): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, MIGRATION_LOCK]);
    if (schema !== 'public') await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${schema}".schema_migrations (
         scope text NOT NULL, version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (scope, version))`,
    );
    // Which release applied each migration: an older binary names the release the data needs.
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${schema}".schema_releases (
         scope text NOT NULL, version integer NOT NULL, release text NOT NULL, PRIMARY KEY (scope, version))`,
    );
    const { rows } = await client.query<{ scope: string; version: number; release: string | null }>(
      `SELECT m.scope, m.version, r.release FROM "${schema}".schema_migrations m
         LEFT JOIN "${schema}".schema_releases r ON r.scope = m.scope AND r.version = m.version`,
    );
    const release = registryRelease();
    assertDataNotNewer(
      rows.map((row) => ({ scope: row.scope, version: row.version, release: row.release ?? undefined })),
      scopes.map(([scope, migrations]) => [scope, migrations.length] as const),
      release,
      `the database (schema ${schema})`,
    );
    const applied = new Set(rows.map((row) => `${row.scope}:${row.version}`));
    for (const [scope, migrations] of scopes) {
      for (const [version, migration] of migrations.entries()) {
        if (applied.has(`${scope}:${version}`)) continue;
        log?.info(
          { scope, migration: version + 1, of: migrations.length },
          `applying database migration ${scope} ${version + 1}`,
        );
        if (typeof migration === 'string') await client.query(migration);
        else await migration(client);
        await client.query(`INSERT INTO "${schema}".schema_migrations (scope, version) VALUES ($1, $2)`, [scope, version]);
        // Replaced, as SQLite does: a migration applied again (a restore onto an older schema)
        // names the release that applied it last.
        await client.query(
          `INSERT INTO "${schema}".schema_releases (scope, version, release) VALUES ($1, $2, $3)
           ON CONFLICT (scope, version) DO UPDATE SET release = EXCLUDED.release`,
          [scope, version, release],
        );
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
