import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { createMemoryStorage } from '../../src/storage/create-storage.js';
import { advisoryStoreContract } from './advisory-store.contract.js';

advisoryStoreContract('memory', async () => {
  const storage = createMemoryStorage();
  return { open: async () => storage, destroy: () => storage.close() };
});

advisoryStoreContract('SQLite', () => freshStorageDatabase('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL advisories', () => {
  advisoryStoreContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
