import { afterEach, beforeEach } from 'vitest';
import type { MetadataStore } from '../../src/storage/ports.js';

/** A database for one test: `open` may be called several times, like several nodes sharing it. */
export interface MetadataStoreDatabase {
  open(): Promise<MetadataStore>;
  destroy(): Promise<void>;
}

/** The stores of the running test: `store` opened first, `open` for more (other processes). */
export interface TestStores {
  readonly store: MetadataStore;
  open(): Promise<MetadataStore>;
}

/**
 * Gives each test of the enclosing describe a fresh, empty, migrated database, and closes every
 * instance opened on it afterwards.
 */
export function eachTestDatabase(freshDatabase: () => Promise<MetadataStoreDatabase>): TestStores {
  let database: MetadataStoreDatabase;
  let opened: MetadataStore[] = [];
  let first: MetadataStore | undefined;

  async function open(): Promise<MetadataStore> {
    const instance = await database.open();
    opened.push(instance);
    await instance.migrate();
    return instance;
  }

  beforeEach(async () => {
    database = await freshDatabase();
    opened = [];
    first = await open();
  });

  afterEach(async () => {
    for (const instance of opened) await instance.close();
    await database.destroy();
  });

  return {
    get store() {
      if (!first) throw new Error('no test is running');
      return first;
    },
    open,
  };
}
