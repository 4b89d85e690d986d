/**
 * The embedded default's write-ahead log is copied into the database file by a worker thread
 * (storage/drivers/sqlite/wal-checkpointer.ts), not by the connection that serves requests.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteMetadataStore } from '../../src/storage/drivers/sqlite/sqlite-metadata-store.js';
import { BACKSTOP_CHECKPOINT_PAGES } from '../../src/storage/drivers/sqlite/wal-checkpointer.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pkg-registry-wal-'));
  file = path.join(dir, 'registry.db');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('copies the log into the database file from its worker, where the serving connection would not yet', async () => {
  const store = new SqliteMetadataStore(file);
  try {
    // The serving connection checkpoints only far past SQLite's default of 1,000 pages.
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_CHECKPOINT_PAGES);
    store.db.exec('CREATE TABLE filler (bytes BLOB NOT NULL)');
    const insert = store.db.prepare('INSERT INTO filler (bytes) VALUES (randomblob(3000))');
    // About 2,000 pages of log, one commit each: past the default, short of the backstop.
    for (let i = 0; i < 2000; i++) insert.run();
    let copied = 0;
    for (let attempt = 0; attempt < 200 && copied < 2000; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      copied = await store.checkpointer!.copied();
    }
    // The worker's count: the serving connection copies nothing below its backstop.
    expect(copied).toBeGreaterThanOrEqual(2000);
  } finally {
    await store.close();
  }
  // The last connection's close checkpoints what is left and removes the log.
  expect(existsSync(`${file}-wal`)).toBe(false);
});

it('has no worker for a database in memory', async () => {
  const store = new SqliteMetadataStore(':memory:');
  try {
    expect(store.checkpointer).toBeUndefined();
  } finally {
    await store.close();
  }
});
