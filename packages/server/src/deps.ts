import type { Config } from './config/config.js';
import type { BlobStore, DownloadCountStore, InvalidationBus, MetadataStore, SearchIndex } from './storage/ports.js';

/** Everything the server does IO through, built by main.ts (or by a test) and passed in. */
export interface ServerDeps {
  config: Config;
  metadata: MetadataStore;
  /** Read side of the search index that `metadata` keeps in its write transactions. */
  search: SearchIndex;
  downloadCounts: DownloadCountStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** Injectable clock: tests move time instead of sleeping. */
  now: () => Date;
}
