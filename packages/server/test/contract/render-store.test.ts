import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { renderStoreContract } from './render-store.contract.js';

renderStoreContract('SQLite', () => freshStorageDatabase('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL render store', () => {
  renderStoreContract('PostgreSQL', () => freshStorageDatabase('postgres'));
});
