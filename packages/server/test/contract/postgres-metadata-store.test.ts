import { describe } from 'vitest';
import { freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { parsePostgresUrl } from '../../src/storage/drivers/postgres/pg-connection.js';
import { PostgresMetadataStore } from '../../src/storage/drivers/postgres/postgres-metadata-store.js';
import { metadataStoreContract } from './metadata-store.contract.js';

describe.skipIf(!testPostgresUrl)('PostgreSQL metadata store', () => {
  metadataStoreContract(
    'PostgreSQL',
    async () => {
      const schema = freshPostgresSchema();
      return {
        open: async () => new PostgresMetadataStore(parsePostgresUrl(schema.url)),
        destroy: () => schema.drop(),
      };
    },
    { exclusiveAcrossInstances: true },
  );
});
