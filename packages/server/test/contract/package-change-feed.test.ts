import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { freshPostgresSchema, testPostgresUrl, type TestPostgres } from '@pkg/testkit';
import { loadConfig } from '../../src/config/config.js';
import { createStorage, type Storage } from '../../src/storage/create-storage.js';
import { ChangeFeedBus } from '../../src/storage/change-feed-bus.js';
import { createPool, parsePostgresUrl } from '../../src/storage/drivers/postgres/pg-connection.js';
import { PostgresPackageChanges } from '../../src/storage/drivers/postgres/postgres-package-changes.js';
import type { ChangeFeedPosition, TenantId } from '../../src/storage/ports.js';
import { addVersion } from './metadata-fixtures.js';

// PostgreSQL is the one store shared by several nodes, so the one with a log of package writes.
describe.skipIf(!testPostgresUrl)('PostgreSQL log of package writes', () => {
  let schema: TestPostgres;
  let dir: string;
  let storage: Storage;
  let pool: pg.Pool;
  let feed: PostgresPackageChanges;
  const opened: Storage[] = [];

  async function open(): Promise<Storage> {
    const node = await createStorage(loadConfig({ flags: { data: dir, database: schema.url }, env: {} }));
    opened.push(node);
    return node;
  }

  beforeEach(async () => {
    schema = freshPostgresSchema();
    dir = await mkdtemp(path.join(tmpdir(), 'pkg-change-feed-'));
    storage = await open();
    pool = createPool(parsePostgresUrl(schema.url), 3);
    feed = new PostgresPackageChanges();
    feed.attach(pool);
  });
  afterEach(async () => {
    for (const node of opened.splice(0)) await node.close();
    await pool.end();
    await schema.drop();
    await rm(dir, { recursive: true, force: true });
  });

  async function write(tenant: TenantId, name: string, version: string): Promise<void> {
    await storage.packages
      .package(tenant, name)
      .update((current) => ({ next: addVersion(current, name, version), result: null }));
  }

  async function read(after: ChangeFeedPosition | undefined) {
    const { changed, next } = await feed.read(after);
    return { changed: changed.map(({ tenant, name }) => `${tenant}/${name}`).sort(), next };
  }

  it('tells nothing on a first read, then each committed write once', async () => {
    await write('', 'com.a.before', '1.0.0');
    const first = await read(undefined);
    expect(first.changed).toEqual([]);
    await write('', 'com.a.b', '1.0.0');
    await write('', 'com.a.b', '1.0.1');
    await write('', 'com.a.c', '1.0.0');
    const second = await read(first.next);
    expect(second.changed).toEqual(['/com.a.b', '/com.a.b', '/com.a.c']);
    expect((await read(second.next)).changed).toEqual([]);
  });

  it('tells nothing written before its first read, while an older transaction holds the horizon back', async () => {
    const older = await pool.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      await write('', 'com.a.before', '1.0.0');
      const first = await read(undefined);
      await write('', 'com.a.after', '1.0.0');
      const second = await read(first.next);
      expect(second.changed).toEqual(['/com.a.after']);
      expect((await read(second.next)).changed).toEqual([]);
    } finally {
      await older.query('ROLLBACK');
      older.release();
    }
  });

  it('tells a write whose transaction committed after a later one, and only once', async () => {
    await write('', 'com.a.slow', '1.0.0');
    const start = await read(undefined);
    const slow = await pool.connect();
    try {
      await slow.query('BEGIN');
      await slow.query("UPDATE packages SET write_count = write_count + 1 WHERE tenant = '' AND name = 'com.a.slow'");
      await write('', 'com.a.fast', '1.0.0');
      const meanwhile = await read(start.next);
      expect(meanwhile.changed).toEqual(['/com.a.fast']);
      await slow.query('COMMIT');
      const after = await read(meanwhile.next);
      expect(after.changed).toEqual(['/com.a.slow']);
      expect((await read(after.next)).changed).toEqual([]);
    } finally {
      slow.release();
    }
  });

  it('tells nothing of a write rolled back', async () => {
    await write('', 'com.a.b', '1.0.0');
    const start = await read(undefined);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("UPDATE packages SET write_count = write_count + 1 WHERE tenant = '' AND name = 'com.a.b'");
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect((await read(start.next)).changed).toEqual([]);
  });

  it("tells every package of a deleted tenant, each under the tenant's name", async () => {
    await storage.registry.tenants.create({
      name: 'acme',
      incarnation: 'acme-1',
      createdAt: '2024-05-06T07:08:09.010Z',
      settings: {},
    });
    await write('acme', 'com.acme.a', '1.0.0');
    await write('acme', 'com.acme.b', '1.0.0');
    const start = await read(undefined);
    await storage.registry.tenants.delete('acme');
    expect((await read(start.next)).changed).toEqual(['acme/com.acme.a', 'acme/com.acme.b']);
  });

  it('forgets writes older than it is told to keep', async () => {
    const start = await read(undefined);
    await write('', 'com.a.b', '1.0.0');
    await feed.prune(60_000);
    const kept = await read(start.next);
    expect(kept.changed).toEqual(['/com.a.b']);
    await write('', 'com.a.c', '1.0.0');
    await feed.prune(0);
    expect((await read(kept.next)).changed).toEqual([]);
  });

  it("reaches another node's listeners when no message was sent, and keeps its caches current without one", async () => {
    const other = await open();
    const bus = other.bus;
    expect(bus).toBeInstanceOf(ChangeFeedBus);
    const heard: string[] = [];
    bus.subscribe((tenant, name) => heard.push(`${tenant}/${name}`));
    let resets = 0;
    bus.subscribeReset(() => resets++);
    const before = bus.heardUntil!;
    expect(before).toBeTypeOf('number');
    // A store write alone: no service published it on the bus, as when a node dies after its commit.
    await write('', 'com.a.silent', '1.0.0');
    await (bus as ChangeFeedBus).readNow();
    expect(heard).toEqual(['/com.a.silent']);
    expect(bus.heardUntil!).toBeGreaterThan(before);
    expect(resets).toBe(0);
  });
});
