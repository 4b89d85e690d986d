import type { ServerDeps } from '../deps.js';
import { AuthService } from './auth-service.js';
import { BatchingDownloadRecorder, type DownloadRecorder } from './downloads.js';
import { ScoreRefresher } from './score-refresher.js';
import { SearchService } from './search-service.js';
import { TenantService } from './tenant-service.js';

/** The use cases of the registry, free of HTTP types; routes call exactly one of them each. */
export interface Services {
  tenants: TenantService;
  auth: AuthService;
  downloads: DownloadRecorder;
  search: SearchService;
  /** Stops background work and writes buffered download counts (the app's onClose). */
  close(): Promise<void>;
}

export interface ServicesOptions {
  /** Where background failures go (buffered count writes, score refreshes). */
  onError?: (err: unknown, task: string) => void;
}

export function createServices(deps: ServerDeps, options: ServicesOptions = {}): Services {
  const onError = options.onError ?? (() => undefined);
  const tenants = new TenantService(deps);
  const auth = new AuthService(deps);
  const downloads = new BatchingDownloadRecorder(
    { counts: deps.downloadCounts, search: deps.search, now: deps.now },
    { onError: (err) => onError(err, 'writing download counts') },
  );
  const scores = new ScoreRefresher(deps, { onError: (err) => onError(err, 'refreshing search scores') });
  const search = new SearchService(deps);
  return {
    tenants,
    auth,
    downloads,
    search,
    async close() {
      await scores.close();
      await downloads.close();
    },
  };
}
