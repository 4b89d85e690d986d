/**
 * Users written by the release before administrators keep working after the upgrade: the
 * migration adds the role as a column that defaults to "not an administrator", an old user
 * reads back as before, keeps its token, and can be made an administrator.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { loadConfig } from '../../src/config/config.js';
import { createStorage } from '../../src/storage/create-storage.js';
import { POSTGRES_MIGRATIONS } from '../../src/storage/drivers/postgres/migrations.js';
import { SQLITE_MIGRATIONS } from '../../src/storage/drivers/sqlite/migrations.js';
import type { TokenRecord, UserRecord } from '../../src/storage/ports.js';
import { inPostgresSchema, migrationContaining } from './previous-release.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-admin-upgrade-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const OLD_USER: UserRecord = {
  name: 'ada',
  email: 'ada@example.com',
  passwordHash: 'scrypt$16384$8$1$c2FsdA==$aGFzaA==',
  createdAt: '2025-06-01T00:00:00.000Z',
  disabled: false,
};
const OLD_TOKEN: TokenRecord = {
  hash: 'b'.repeat(64),
  user: 'ada',
  createdAt: OLD_USER.createdAt,
  expiresAt: null,
  readonly: false,
};
const MIGRATION = 'ADD COLUMN admin';

async function open(database: string) {
  return createStorage(loadConfig({ flags: { data: dataDir, database }, env: {} }));
}

/** Writes a user with a token, then takes the schema back to before the role (`downgrade`). */
async function upgradeFromPreviousRelease(database: string, downgrade: () => Promise<void>): Promise<void> {
  const before = await open(database);
  try {
    await before.registry.users.create('', OLD_USER);
    await before.registry.tokens.create('', OLD_TOKEN);
  } finally {
    await before.close();
  }
  await downgrade();
  const after = await open(database);
  try {
    expect(await after.registry.users.get('', 'ada')).toEqual(OLD_USER);
    expect(await after.registry.tokens.get('', OLD_TOKEN.hash)).toEqual(OLD_TOKEN);
    await after.registry.users.update('', 'ada', { admin: true });
    expect(await after.registry.users.get('', 'ada')).toEqual({ ...OLD_USER, admin: true });
  } finally {
    await after.close();
  }
}

describe('upgrading a registry that had no administrators', () => {
  it('SQLite: old users read back as before, keep their tokens, and can be made administrators', async () => {
    const file = path.join(dataDir, 'registry.db');
    await upgradeFromPreviousRelease(`sqlite:${file}`, async () => {
      const db = new Database(file);
      try {
        db.exec('ALTER TABLE users DROP COLUMN admin');
        db.prepare(`DELETE FROM schema_migrations WHERE scope = 'core' AND version = ?`).run(
          migrationContaining(SQLITE_MIGRATIONS, MIGRATION),
        );
      } finally {
        db.close();
      }
    });
  });

  it.skipIf(!testPostgresUrl)('PostgreSQL: the same', async () => {
    const schema = freshPostgresSchema();
    try {
      await upgradeFromPreviousRelease(schema.url, () =>
        inPostgresSchema(schema.schema, [
          'ALTER TABLE users DROP COLUMN admin',
          [
            `DELETE FROM schema_migrations WHERE scope = 'core' AND version = $1`,
            [migrationContaining(POSTGRES_MIGRATIONS, MIGRATION)],
          ],
        ]),
      );
    } finally {
      await schema.drop();
    }
  });
});
