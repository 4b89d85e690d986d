import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'vitest';
import { freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { MemoryDatabase, MemoryMetadataStore } from '../../src/storage/drivers/memory/memory-metadata-store.js';
import { parsePostgresUrl } from '../../src/storage/drivers/postgres/pg-connection.js';
import { PostgresMetadataStore } from '../../src/storage/drivers/postgres/postgres-metadata-store.js';
import { SqliteMetadataStore } from '../../src/storage/drivers/sqlite/sqlite-metadata-store.js';
import type { MetadataStoreDatabase } from './metadata-database.js';

/**
 * Runs a contract suite of a store kept in the metadata database on every driver: memory,
 * SQLite, and PostgreSQL when PKG_TEST_POSTGRES names one. Stores opened on one database share
 * it, as processes share a database.
 */
export function onEveryMetadataDriver(
  contract: (driver: string, freshDatabase: () => Promise<MetadataStoreDatabase>) => void,
): void {
  contract('memory', async () => {
    const db = new MemoryDatabase();
    return { open: async () => new MemoryMetadataStore(db), destroy: async () => undefined };
  });
  contract('SQLite', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-accounts-'));
    const file = path.join(dir, 'registry.db');
    return { open: async () => new SqliteMetadataStore(file), destroy: () => rm(dir, { recursive: true, force: true }) };
  });
  describe.skipIf(!testPostgresUrl)('PostgreSQL', () => {
    contract('PostgreSQL', async () => {
      const schema = freshPostgresSchema();
      return { open: async () => new PostgresMetadataStore(parsePostgresUrl(schema.url)), destroy: () => schema.drop() };
    });
  });
}
