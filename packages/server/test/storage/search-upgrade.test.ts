/**
 * A registry indexed by a release whose search objects had no `engines` shows them once the
 * server is upgraded: the search index's last migration serializes every package's search
 * shapes again from its stored document, without a new publish.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredPackage } from '../../src/storage/ports.js';
import { buildStoredPackage, freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { loadConfig } from '../../src/config/config.js';
import { createStorage, type Storage } from '../../src/storage/create-storage.js';
import { POSTGRES_SEARCH_MIGRATIONS } from '../../src/storage/drivers/postgres/postgres-search-index.js';
import { SEARCH_MIGRATIONS } from '../../src/storage/drivers/sqlite/sqlite-search-index.js';
import { inPostgresSchema } from './previous-release.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-search-upgrade-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** A Godot 4.2–4.3 plugin that also names Unreal Engine 5.3. */
function godotPackage(): StoredPackage {
  const pkg = buildStoredPackage('com.acme.dialogue', { versions: ['1.0.0'] });
  Object.assign(pkg.document.versions['1.0.0']!, { godot: '4.2', godotMax: '4.3', unreal: '5.3' });
  return pkg;
}

const ENGINES = [
  { engine: 'godot', min: '4.2', max: '4.3' },
  { engine: 'unreal', min: '5.3' },
];

async function searchEngines(storage: Storage): Promise<unknown> {
  const page = await storage.search.search(
    '',
    { terms: ['dialogue'], keywords: { include: [], exclude: [] }, authors: [], maintainers: [] },
    { size: 10, from: 0 },
  );
  expect(page.hits.map((hit) => hit.name)).toEqual(['com.acme.dialogue']);
  return (JSON.parse(page.hits[0]!.packageJson) as { engines?: unknown }).engines;
}

/** Writes the package, then puts the database back as the older release had left it. */
async function indexedByAnOlderRelease(database: string, downgrade: () => Promise<void>): Promise<void> {
  const storage = await createStorage(loadConfig({ flags: { data: dataDir, database }, env: {} }));
  try {
    await storage.packages.package('', 'com.acme.dialogue').update(() => ({ next: godotPackage(), result: null }));
    expect(await searchEngines(storage)).toEqual(ENGINES);
  } finally {
    await storage.close();
  }
  await downgrade();
}

/**
 * The version of the last migration that rewrites the search objects (a function, not SQL): a
 * release before it stored objects without what it adds. Later migrations (indexes) leave them.
 */
function lastRewrite(migrations: readonly unknown[]): number {
  for (let version = migrations.length - 1; version >= 0; version--)
    if (typeof migrations[version] === 'function') return version;
  throw new Error('no migration rewrites the search objects');
}

async function upgraded(database: string): Promise<unknown> {
  const storage = await createStorage(loadConfig({ flags: { data: dataDir, database }, env: {} }));
  try {
    return await searchEngines(storage);
  } finally {
    await storage.close();
  }
}

describe('upgrading a registry whose search objects had no engines', () => {
  it('SQLite: the engines of packages indexed before appear at the next start', async () => {
    const file = path.join(dataDir, 'registry.db');
    const database = `sqlite:${file}`;
    await indexedByAnOlderRelease(database, async () => {
      const db = new Database(file);
      try {
        db.prepare(`UPDATE search_documents SET package_json = json_remove(package_json, '$.engines')`).run();
        db.prepare(`DELETE FROM schema_migrations WHERE scope = 'search' AND version = ?`).run(lastRewrite(SEARCH_MIGRATIONS));
      } finally {
        db.close();
      }
    });
    expect(await upgraded(database)).toEqual(ENGINES);
  });

  it.skipIf(!testPostgresUrl)('PostgreSQL: the same', async () => {
    const schema = freshPostgresSchema();
    try {
      await indexedByAnOlderRelease(schema.url, () =>
        inPostgresSchema(schema.schema, [
          `UPDATE search_packages SET package_json = (package_json::jsonb - 'engines')::text`,
          [`DELETE FROM schema_migrations WHERE scope = 'search' AND version = $1`, [lastRewrite(POSTGRES_SEARCH_MIGRATIONS)]],
        ]),
      );
      expect(await upgraded(schema.url)).toEqual(ENGINES);
    } finally {
      await schema.drop();
    }
  });
});
