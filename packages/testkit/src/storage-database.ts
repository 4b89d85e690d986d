import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createStorage, loadConfig, type Storage } from '@pkg/server';
import { freshPostgresSchema } from './backing-services.js';

/**
 * A throwaway database for a storage contract suite: `open` starts a whole Storage on it, and
 * may be called again (another node sharing it); `destroy` closes them all, then removes it.
 */
export interface StorageDatabase {
  open(): Promise<Storage>;
  destroy(): Promise<void>;
}

/**
 * A fresh data folder and, for `postgres`, a fresh schema of PKG_TEST_POSTGRES (so it runs only
 * where that is set): the database is the one createStorage picks from those settings.
 */
export async function freshStorageDatabase(kind: 'sqlite' | 'postgres'): Promise<StorageDatabase> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-storage-'));
  const schema = kind === 'postgres' ? freshPostgresSchema() : undefined;
  const flags: Record<string, string> = schema ? { data: dir, database: schema.url } : { data: dir };
  const opened: Storage[] = [];
  return {
    async open() {
      const storage = await createStorage(loadConfig({ flags, env: {} }));
      opened.push(storage);
      return storage;
    },
    async destroy() {
      for (const storage of opened) await storage.close();
      await schema?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
