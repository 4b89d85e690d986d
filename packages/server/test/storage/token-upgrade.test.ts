/**
 * Tokens written by the release before scoped tokens keep working after the upgrade: the
 * migration adds the columns for limits and last use, and an old token reads back with no
 * limits, authenticates, and records its use.
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
import { inPostgresSchema, migrationContaining } from './previous-release.js';
import type { TokenRecord } from '../../src/storage/ports.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-token-upgrade-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const OLD_TOKEN: TokenRecord = {
  hash: 'a'.repeat(64),
  user: 'ada',
  createdAt: '2025-06-01T00:00:00.000Z',
  expiresAt: null,
  readonly: true,
  prefix: 'abcdef',
};

/** Writes a user and a token, then takes the database back to the schema before scoped tokens. */
async function writtenByThePreviousRelease(database: string, downgrade: () => Promise<void>): Promise<void> {
  const storage = await createStorage(loadConfig({ flags: { data: dataDir, database }, env: {} }));
  try {
    await storage.registry.users.create('', {
      name: 'ada',
      email: 'ada@example.com',
      passwordHash: 'x',
      createdAt: OLD_TOKEN.createdAt,
      disabled: false,
    });
    await storage.registry.tokens.create('', OLD_TOKEN);
  } finally {
    await storage.close();
  }
  await downgrade();
}

async function afterTheUpgrade(database: string): Promise<void> {
  const storage = await createStorage(loadConfig({ flags: { data: dataDir, database }, env: {} }));
  try {
    expect(await storage.registry.tokens.get('', OLD_TOKEN.hash)).toEqual(OLD_TOKEN);
    await storage.registry.tokens.recordUses('', [{ hash: OLD_TOKEN.hash, at: '2026-01-01T00:00:00.000Z', address: '10.0.0.1' }]);
    expect(await storage.registry.tokens.listOfUser('', 'ada')).toEqual([
      { ...OLD_TOKEN, lastUsedAt: '2026-01-01T00:00:00.000Z', lastAddress: '10.0.0.1' },
    ]);
  } finally {
    await storage.close();
  }
}

describe('upgrading a registry whose tokens had no limits', () => {
  it('SQLite: old tokens read back unlimited and record their use', async () => {
    const file = path.join(dataDir, 'registry.db');
    const database = `sqlite:${file}`;
    await writtenByThePreviousRelease(database, async () => {
      const db = new Database(file);
      try {
        for (const column of ['scope', 'last_used_at', 'last_address']) db.exec(`ALTER TABLE tokens DROP COLUMN ${column}`);
        db.prepare(`DELETE FROM schema_migrations WHERE scope = 'core' AND version = ?`).run(
          migrationContaining(SQLITE_MIGRATIONS, 'ADD COLUMN scope'),
        );
      } finally {
        db.close();
      }
    });
    await afterTheUpgrade(database);
  });

  it.skipIf(!testPostgresUrl)('PostgreSQL: the same', async () => {
    const schema = freshPostgresSchema();
    try {
      await writtenByThePreviousRelease(schema.url, () =>
        inPostgresSchema(schema.schema, [
          'ALTER TABLE tokens DROP COLUMN scope, DROP COLUMN last_used_at, DROP COLUMN last_address',
          [
            `DELETE FROM schema_migrations WHERE scope = 'core' AND version = $1`,
            [migrationContaining(POSTGRES_MIGRATIONS, 'ADD COLUMN scope')],
          ],
        ]),
      );
      await afterTheUpgrade(schema.url);
    } finally {
      await schema.drop();
    }
  });
});
