import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { createPool, inTransaction, parsePostgresUrl } from '../../src/storage/drivers/postgres/pg-connection.js';

describe.skipIf(!testPostgresUrl)('PostgreSQL sessions checked out of the pool', () => {
  it('a transaction whose connection is killed fails; the process lives on and the pool serves again', async () => {
    const schema = freshPostgresSchema();
    const location = parsePostgresUrl(schema.url);
    const pool = createPool(location, 2);
    pool.on('error', () => undefined);
    const admin = new pg.Client({ connectionString: testPostgresUrl });
    await admin.connect();
    try {
      const killedMidTransaction = inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        // The session is checked out and idle in its transaction when the server drops it: the
        // dropped connection is an 'error' event with no listener of pg-pool's, which without
        // one would be an uncaught exception (vitest fails the run on it).
        await new Promise((resolve) => setTimeout(resolve, 200));
        await client.query('SELECT 1');
      });
      await expect(killedMidTransaction).rejects.toThrow(/terminat|connection error/i);
      expect(await inTransaction(pool, async (client) => (await client.query('SELECT 2 AS two')).rows[0])).toEqual({ two: 2 });
    } finally {
      await admin.end();
      await pool.end();
      await schema.drop();
    }
  });
});
