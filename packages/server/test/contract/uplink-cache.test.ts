import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'vitest';
import { freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { loadConfig } from '../../src/config/config.js';
import { createStorage, type Storage } from '../../src/storage/create-storage.js';
import { uplinkCacheContract } from './uplink-cache.contract.js';

/** Opens whole storages on one database, closing them with it. */
function database(settings: () => Record<string, string>, cleanup: () => Promise<void>) {
  const opened: Storage[] = [];
  return {
    async open() {
      const storage = await createStorage(loadConfig({ flags: settings(), env: {} }));
      opened.push(storage);
      return storage;
    },
    async destroy() {
      for (const storage of opened) await storage.close();
      await cleanup();
    },
  };
}

uplinkCacheContract('SQLite', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-uplink-cache-'));
  return database(
    () => ({ data: dir }),
    () => rm(dir, { recursive: true, force: true }),
  );
});

describe.skipIf(!testPostgresUrl)('PostgreSQL uplink cache', () => {
  uplinkCacheContract('PostgreSQL', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-uplink-cache-'));
    const schema = freshPostgresSchema();
    return database(
      () => ({ data: dir, database: schema.url }),
      async () => {
        await schema.drop();
        await rm(dir, { recursive: true, force: true });
      },
    );
  });
});
