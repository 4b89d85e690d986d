import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { createMemoryStorage } from '../../src/storage/create-storage.js';
import { changeLogContract } from './change-log.contract.js';

changeLogContract('memory', async () => {
  const storage = createMemoryStorage();
  return { open: async () => storage, destroy: () => storage.close() };
});

changeLogContract('SQLite', () => freshStorageDatabase('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL change log', () => {
  changeLogContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
