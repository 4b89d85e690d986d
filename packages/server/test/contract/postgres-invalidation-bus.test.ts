import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshPostgresSchema, testPostgresUrl } from '@pkg/testkit';
import { parsePostgresUrl, type PgLocation } from '../../src/storage/drivers/postgres/pg-connection.js';
import { PostgresInvalidationBus } from '../../src/storage/drivers/postgres/postgres-invalidation-bus.js';
import type { TenantId } from '../../src/storage/ports.js';
import { invalidationBusContract, waitFor } from './invalidation-bus.contract.js';

async function openBus(location: PgLocation): Promise<PostgresInvalidationBus> {
  const pool = new pg.Pool({ connectionString: location.connectionString, max: 2 });
  const bus = new PostgresInvalidationBus(location, pool);
  await bus.start();
  const close = bus.close.bind(bus);
  return Object.assign(bus, {
    async close() {
      await close();
      await pool.end();
    },
  });
}

describe.skipIf(!testPostgresUrl)('PostgreSQL LISTEN/NOTIFY invalidation bus', () => {
  invalidationBusContract(
    'PostgreSQL LISTEN/NOTIFY',
    async () => {
      // The channel is named after the schema; no tables are needed.
      const schema = freshPostgresSchema();
      return { open: () => openBus(parsePostgresUrl(schema.url)), destroy: () => schema.drop() };
    },
    { shared: true },
  );

  it('reconnects by itself when its session is killed, with a cache reset', async () => {
    const schema = freshPostgresSchema();
    const location = parsePostgresUrl(schema.url);
    const a = await openBus(location);
    const b = await openBus(location);
    const heard: [TenantId, string][] = [];
    b.subscribe((tenant, name) => heard.push([tenant, name]));
    let resets = 0;
    b.subscribeReset(() => resets++);
    const admin = new pg.Client({ connectionString: testPostgresUrl });
    await admin.connect();
    try {
      const killed = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
        `pkg-registry-listen:${schema.schema}`,
      ]);
      expect(killed.rowCount).toBe(2);
      await waitFor(() => resets >= 2 && b.connected, 10_000);
      expect(b.connected).toBe(true);
      expect(resets).toBe(2); // once when lost, once when back
      await waitFor(() => a.connected);
      await a.publish('', 'com.acme.after');
      await waitFor(() => heard.length > 0);
      expect(heard).toEqual([['', 'com.acme.after']]);
    } finally {
      await admin.end();
      await a.close();
      await b.close();
      await schema.drop();
    }
  });
});
