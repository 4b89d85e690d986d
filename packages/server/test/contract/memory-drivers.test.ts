/** The memory driver of every storage port runs the same contract suites as the real drivers. */
import type { DownloadIncrement, UplinkCacheRecord } from '../../src/storage/ports.js';
import { MemoryBlobStore, type MemoryBlobs } from '../../src/storage/drivers/memory/memory-blob-store.js';
import { MemoryDownloadCounts } from '../../src/storage/drivers/memory/memory-download-counts.js';
import { MemoryDatabase, MemoryMetadataStore } from '../../src/storage/drivers/memory/memory-metadata-store.js';
import { MemoryUplinkCache } from '../../src/storage/drivers/memory/memory-uplink-cache.js';
import { blobStoreContract } from './blob-store.contract.js';
import { downloadCountsContract } from './download-counts.contract.js';
import { metadataStoreContract } from './metadata-store.contract.js';
import { sessionStoreContract } from './session-store.contract.js';
import { uplinkCacheContract } from './uplink-cache.contract.js';

// Stores opened on one memory database share it, as processes share a database file.
metadataStoreContract(
  'memory',
  async () => {
    const db = new MemoryDatabase();
    return { open: async () => new MemoryMetadataStore(db), destroy: async () => undefined };
  },
  { exclusiveAcrossInstances: true },
);

sessionStoreContract('memory', async () => {
  const db = new MemoryDatabase();
  return { open: async () => new MemoryMetadataStore(db), destroy: async () => undefined };
});

blobStoreContract('memory', async () => {
  const blobs: MemoryBlobs = new Map();
  return { open: async () => new MemoryBlobStore(blobs), destroy: async () => undefined };
});

downloadCountsContract('memory', async () => {
  const counts = new Map<string, DownloadIncrement>();
  return { open: async () => new MemoryDownloadCounts(counts), destroy: async () => undefined };
});

uplinkCacheContract('memory', async () => {
  const db = new MemoryDatabase();
  const records = new Map<string, UplinkCacheRecord>();
  return {
    open: async () => {
      const uplinkCache = new MemoryUplinkCache(records);
      return { uplinkCache, metadata: new MemoryMetadataStore(db, [uplinkCache.writeHook]) };
    },
    destroy: async () => undefined,
  };
});
