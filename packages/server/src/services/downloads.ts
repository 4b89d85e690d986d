import type { TenantId } from '../storage/ports.js';

/**
 * Counts tarball downloads. The tarball route calls `record` for every successful GET; an
 * implementation must not slow the download path (batch its writes).
 */
export interface DownloadRecorder {
  record(tenant: TenantId, name: string, version: string): void;
  /** Writes what is buffered (called on shutdown). */
  flush(): Promise<void>;
}

/** Counts nothing: the placeholder until a store-backed recorder is wired in. */
export class NoDownloadRecorder implements DownloadRecorder {
  record(): void {}
  async flush(): Promise<void> {}
}
