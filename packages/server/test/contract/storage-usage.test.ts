import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { storageUsageContract } from './storage-usage.contract.js';

storageUsageContract('SQLite', () => freshStorageDatabase('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL storage usage', () => {
  storageUsageContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
