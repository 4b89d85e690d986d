/**
 * Versioned schema of the SQLite metadata store. Append only: a released migration never
 * changes; a new one is added at the end.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tenants (
    name TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}'
  );
  CREATE TABLE users (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, name)
  ) WITHOUT ROWID;
  CREATE TABLE tokens (
    tenant TEXT NOT NULL,
    hash TEXT NOT NULL,
    user TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    readonly INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, hash)
  ) WITHOUT ROWID;
  CREATE INDEX tokens_by_user ON tokens (tenant, user);
  CREATE TABLE packages (
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    document TEXT NOT NULL,
    published_versions TEXT NOT NULL,
    unpublished INTEGER NOT NULL DEFAULT 0,
    write_count INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant, name)
  );
  `,
  // Web interface: browser sign-in and npm web-login sessions; a recognisable token prefix.
  `
  CREATE TABLE sessions (
    tenant TEXT NOT NULL,
    hash TEXT NOT NULL,
    kind TEXT NOT NULL,
    user TEXT,
    data TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (tenant, hash)
  ) WITHOUT ROWID;
  CREATE INDEX sessions_by_expiry ON sessions (expires_at);
  ALTER TABLE tokens ADD COLUMN prefix TEXT;
  `,
  // Tenant incarnations (issue 26): a tenant deleted and created again under the same name is
  // another tenant to every cache. Tenants of the previous release get one each.
  `
  ALTER TABLE tenants ADD COLUMN incarnation TEXT NOT NULL DEFAULT '';
  UPDATE tenants SET incarnation = lower(hex(randomblob(16)));
  `,
  // Scoped tokens (npm's token API): limits as JSON, and the last use.
  `
  ALTER TABLE tokens ADD COLUMN scope TEXT;
  ALTER TABLE tokens ADD COLUMN last_used_at TEXT;
  ALTER TABLE tokens ADD COLUMN last_address TEXT;
  `,
  // Two-factor sign-in: the user's TOTP enrolment as JSON.
  `
  ALTER TABLE users ADD COLUMN second_factor TEXT;
  `,
  // Administrators of a registry (issue 26): a flag per user.
  `
  ALTER TABLE users ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
  `,
];
