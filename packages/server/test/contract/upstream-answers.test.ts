import { describe } from 'vitest';
import { freshStorageDatabase, testPostgresUrl } from '@pkg/testkit';
import { MemoryUpstreamAnswers } from '../../src/storage/drivers/memory/memory-upstream-answers.js';
import { upstreamAnswerContract } from './upstream-answers.contract.js';

upstreamAnswerContract(
  'memory',
  async () => ({
    open: async () => new MemoryUpstreamAnswers(),
    destroy: async () => undefined,
  }),
  { shared: false },
);

// The embedded default (SQLite) runs one node: its storage keeps upstream answers in memory.
upstreamAnswerContract(
  'SQLite profile (memory)',
  async () => {
    const database = await freshStorageDatabase('sqlite');
    return { open: async () => (await database.open()).upstreamAnswers, destroy: () => database.destroy() };
  },
  { shared: false },
);

describe.skipIf(!testPostgresUrl)('PostgreSQL upstream answers', () => {
  upstreamAnswerContract(
    'PostgreSQL',
    async () => {
      const database = await freshStorageDatabase('postgres');
      return { open: async () => (await database.open()).upstreamAnswers, destroy: () => database.destroy() };
    },
    { shared: true },
  );
});
