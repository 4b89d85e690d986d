/** The memory driver of every storage port runs the same contract suites as the real drivers. */
import type { DownloadIncrement, UplinkCacheRecord } from '../../src/storage/ports.js';
import { MemoryBlobStore, type MemoryBlobs } from '../../src/storage/drivers/memory/memory-blob-store.js';
import { MemoryDownloadCounts } from '../../src/storage/drivers/memory/memory-download-counts.js';
import { MemoryDatabase, MemoryMetadataStore } from '../../src/storage/drivers/memory/memory-metadata-store.js';
import { MemoryUplinkCache } from '../../src/storage/drivers/memory/memory-uplink-cache.js';
import { blobStoreContract } from './blob-store.contract.js';
import { downloadCountsContract } from './download-counts.contract.js';
import type { MetadataStoreDatabase } from './metadata-database.js';
import { packageStoreContract } from './package-store.contract.js';
import { uplinkCacheContract } from './uplink-cache.contract.js';
import { storageUsageContract } from './storage-usage.contract.js';
import { MemoryStorageUsage } from '../../src/storage/drivers/memory/memory-storage-usage.js';

// Stores opened on one memory database share it, as processes share a database file.
async function freshDatabase(): Promise<MetadataStoreDatabase> {
  const db = new MemoryDatabase();
  return { open: async () => new MemoryMetadataStore(db), destroy: async () => undefined };
}

packageStoreContract('memory', freshDatabase, { exclusiveAcrossInstances: true });

blobStoreContract('memory', async () => {
  const blobs: MemoryBlobs = new Map();
  return { open: async () => new MemoryBlobStore(blobs), destroy: async () => undefined };
});

downloadCountsContract('memory', async () => {
  const counts = new Map<string, DownloadIncrement>();
  // The contract's database holds the global registry and tenant `acme`.
  const tenantExists = (tenant: string) => tenant === '' || tenant === 'acme';
  return {
    open: async () => ({ downloadCounts: new MemoryDownloadCounts(counts, tenantExists) }),
    destroy: async () => undefined,
  };
});

uplinkCacheContract('memory', async () => {
  const db = new MemoryDatabase();
  const records = new Map<string, UplinkCacheRecord>();
  return {
    open: async () => {
      const uplinkCache = new MemoryUplinkCache(records, (tenant) => db.tenantExists(tenant));
      return { uplinkCache, registry: new MemoryMetadataStore(db, [uplinkCache.writeHook]).accounts };
    },
    destroy: async () => undefined,
  };
});

storageUsageContract('memory', async () => {
  const db = new MemoryDatabase();
  const usage = new MemoryStorageUsage();
  return {
    open: async () => {
      const store = new MemoryMetadataStore(db, [usage.writeHook]);
      return { usage, registry: store.accounts, packages: store };
    },
    destroy: async () => undefined,
  };
});
