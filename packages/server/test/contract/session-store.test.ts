import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'vitest';
import { freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { parsePostgresUrl } from '../../src/storage/drivers/postgres/pg-connection.js';
import { PostgresMetadataStore } from '../../src/storage/drivers/postgres/postgres-metadata-store.js';
import { SqliteMetadataStore } from '../../src/storage/drivers/sqlite/sqlite-metadata-store.js';
import { sessionStoreContract } from './session-store.contract.js';

sessionStoreContract('SQLite', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-sessions-'));
  const file = path.join(dir, 'registry.db');
  return {
    open: async () => new SqliteMetadataStore(file),
    destroy: () => rm(dir, { recursive: true, force: true }),
  };
});

describe.skipIf(!testPostgresUrl)('PostgreSQL sessions', () => {
  sessionStoreContract('PostgreSQL', async () => {
    const schema = freshPostgresSchema();
    return {
      open: async () => new PostgresMetadataStore(parsePostgresUrl(schema.url)),
      destroy: () => schema.drop(),
    };
  });
});
