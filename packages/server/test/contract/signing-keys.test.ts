import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { createMemoryStorage } from '../../src/storage/create-storage.js';
import { signingKeyContract } from './signing-keys.contract.js';

signingKeyContract('memory', async () => {
  const storage = createMemoryStorage();
  return { open: async () => storage, destroy: () => storage.close() };
});

signingKeyContract('SQLite', () => freshStorageDatabase('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL signing keys', () => {
  signingKeyContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
