import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { createMemoryStorage } from '../../src/storage/create-storage.js';
import { storageUsageContract } from './storage-usage.contract.js';

storageUsageContract('SQLite', () => freshStorageDatabase('sqlite'));

// One storage in process memory is its only node: both "nodes" of a test are that one.
storageUsageContract('memory', async () => {
  const storage = createMemoryStorage();
  return { open: async () => storage, destroy: () => storage.close() };
});

describe.skipIf(!testPostgresUrl)('PostgreSQL storage usage', () => {
  storageUsageContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
