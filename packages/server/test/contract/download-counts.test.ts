import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { downloadCountsContract } from './download-counts.contract.js';

/** The contract's database: the global registry and tenant `acme` (counts of others are dropped). */
async function withTenantAcme(kind: 'sqlite' | 'postgres') {
  const database = await freshStorageDatabase(kind);
  return {
    ...database,
    async open() {
      const storage = await database.open();
      await storage.registry.tenants.create({
        name: 'acme',
        incarnation: 'first',
        createdAt: '2025-01-01T00:00:00.000Z',
        settings: {},
      });
      return storage;
    },
  };
}

downloadCountsContract('SQLite', () => withTenantAcme('sqlite'));

describe.skipIf(!testPostgresUrl)('PostgreSQL download counts', () => {
  downloadCountsContract('PostgreSQL', () => withTenantAcme('postgres'));
});
