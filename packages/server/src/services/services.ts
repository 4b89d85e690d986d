import type { ServerDeps } from '../deps.js';
import { AuthService } from './auth-service.js';
import { NoDownloadRecorder, type DownloadRecorder } from './downloads.js';
import { TenantService } from './tenant-service.js';
import { RateLimitService } from './rate-limits.js';
import { createMemoryCounterStore } from '../storage/counter-store.js';

/** The use cases of the registry, free of HTTP types; routes call exactly one of them each. */
export interface Services {
  tenants: TenantService;
  auth: AuthService;
  rateLimits: RateLimitService;
  downloads: DownloadRecorder;
}

export function createServices(deps: ServerDeps): Services {
  const counters = deps.counters ?? createMemoryCounterStore();
  const tenants = new TenantService(deps);
  const auth = new AuthService(deps, counters);
  const rateLimits = new RateLimitService(counters);
  const downloads = new NoDownloadRecorder();
  return { tenants, auth, rateLimits, downloads };
}
