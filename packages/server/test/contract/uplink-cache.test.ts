import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { uplinkCacheContract } from './uplink-cache.contract.js';

uplinkCacheContract('SQLite', () => freshStorageDatabase('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL uplink cache', () => {
  uplinkCacheContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
