import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { createMemoryStorage } from '../../src/storage/create-storage.js';
import { teamStoreContract } from './team-store.contract.js';

teamStoreContract('memory', async () => {
  const storage = createMemoryStorage();
  return { open: async () => storage, destroy: () => storage.close() };
});

teamStoreContract('SQLite', () => freshStorageDatabase('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL teams', () => {
  teamStoreContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
