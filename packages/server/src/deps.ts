import type { Config } from './config/config.js';
import type { CounterStore } from './storage/counter-store.js';
import type { BlobStore, InvalidationBus, MetadataStore } from './storage/ports.js';

/** Everything the server does IO through, built by main.ts (or by a test) and passed in. */
export interface ServerDeps {
  config: Config;
  metadata: MetadataStore;
  blobs: BlobStore;
  bus: InvalidationBus;
  /** Rate-limit and login-throttle counters; in-process ones when not given. */
  counters?: CounterStore;
  /** Injectable clock: tests move time instead of sleeping. */
  now: () => Date;
}
