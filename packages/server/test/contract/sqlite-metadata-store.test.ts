import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteMetadataStore } from '../../src/storage/drivers/sqlite/sqlite-metadata-store.js';
import type { MetadataStoreDatabase } from './metadata-database.js';
import { packageStoreContract } from './package-store.contract.js';

async function freshDatabase(): Promise<MetadataStoreDatabase> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-sqlite-contract-'));
  const file = path.join(dir, 'registry.db');
  return {
    open: async () => new SqliteMetadataStore(file),
    destroy: () => rm(dir, { recursive: true, force: true }),
  };
}

packageStoreContract('SQLite', freshDatabase, { exclusiveAcrossInstances: false });
