import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { downloadCountsContract } from './download-counts.contract.js';

downloadCountsContract('SQLite', () => freshStorageDatabase('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL download counts', () => {
  downloadCountsContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
