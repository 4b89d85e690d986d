/**
 * Tenants written by the release before tenant incarnations (issue 26) keep working after the
 * upgrade: the migration gives each one an incarnation of its own, and their users, tokens and
 * settings are untouched.
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
import { tenant, token, user } from '../contract/metadata-fixtures.js';
import { inPostgresSchema, migrationContaining } from './previous-release.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-tenant-upgrade-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Writes two tenants with an account each, then puts the schema back as the previous release had it. */
async function writtenByThePreviousRelease(database: string, downgrade: () => Promise<void>): Promise<void> {
  const storage = await createStorage(loadConfig({ flags: { data: dataDir, database }, env: {} }));
  try {
    for (const name of ['acme', 'other']) {
      await storage.registry.tenants.create(tenant(name, { readAccess: 'token' }));
      await storage.registry.users.create(name, user('ada'));
      await storage.registry.tokens.create(name, token(`hash-${name}`, 'ada'));
    }
  } finally {
    await storage.close();
  }
  await downgrade();
}

async function afterUpgrade(database: string): Promise<void> {
  const storage = await createStorage(loadConfig({ flags: { data: dataDir, database }, env: {} }));
  try {
    const tenants = await storage.registry.tenants.list();
    expect(tenants.map((t) => [t.name, t.settings])).toEqual([
      ['acme', { readAccess: 'token' }],
      ['other', { readAccess: 'token' }],
    ]);
    const incarnations = tenants.map((t) => t.incarnation);
    for (const incarnation of incarnations) expect(incarnation).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(incarnations).size).toBe(2);
    expect((await storage.registry.tenants.get('acme'))?.incarnation).toBe(incarnations[0]);
    for (const name of ['acme', 'other']) {
      expect(await storage.registry.users.get(name, 'ada')).toEqual(user('ada'));
      expect(await storage.registry.tokens.get(name, `hash-${name}`)).toEqual(token(`hash-${name}`, 'ada'));
    }
  } finally {
    await storage.close();
  }
}

describe('upgrading tenants of the previous release', () => {
  it('SQLite: each tenant gets an incarnation of its own, its accounts stay', async () => {
    const file = path.join(dataDir, 'registry.db');
    const database = `sqlite:${file}`;
    await writtenByThePreviousRelease(database, async () => {
      const db = new Database(file);
      try {
        db.prepare('ALTER TABLE tenants DROP COLUMN incarnation').run();
        db.prepare(`DELETE FROM schema_migrations WHERE scope = 'core' AND version = ?`).run(
          migrationContaining(SQLITE_MIGRATIONS, 'incarnation'),
        );
      } finally {
        db.close();
      }
    });
    await afterUpgrade(database);
  });

  it.skipIf(!testPostgresUrl)('PostgreSQL: the same', async () => {
    const schema = freshPostgresSchema();
    try {
      await writtenByThePreviousRelease(schema.url, () =>
        inPostgresSchema(schema.schema, [
          'ALTER TABLE tenants DROP COLUMN incarnation',
          [
            `DELETE FROM schema_migrations WHERE scope = 'core' AND version = $1`,
            [migrationContaining(POSTGRES_MIGRATIONS, 'incarnation')],
          ],
        ]),
      );
      await afterUpgrade(schema.url);
    } finally {
      await schema.drop();
    }
  });
});
