import { describe } from 'vitest';
import { freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { parsePostgresUrl } from '../../src/storage/drivers/postgres/pg-connection.js';
import { PostgresMetadataStore } from '../../src/storage/drivers/postgres/postgres-metadata-store.js';
import type { MetadataStoreDatabase } from './metadata-database.js';
import { packageStoreContract } from './package-store.contract.js';

async function freshDatabase(): Promise<MetadataStoreDatabase> {
  const schema = freshPostgresSchema();
  return {
    open: async () => new PostgresMetadataStore(parsePostgresUrl(schema.url)),
    destroy: () => schema.drop(),
  };
}

describe.skipIf(!testPostgresUrl)('PostgreSQL metadata store', () => {
  packageStoreContract('PostgreSQL', freshDatabase, { exclusiveAcrossInstances: true });
});
