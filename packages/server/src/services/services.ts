import type { ServerDeps } from '../deps.js';
import { AuthService } from './auth-service.js';
import { NoDownloadRecorder, type DownloadRecorder } from './downloads.js';
import { HealthService } from './health-service.js';
import { TenantService } from './tenant-service.js';

/** The use cases of the registry, free of HTTP types; routes call exactly one of them each. */
export interface Services {
  tenants: TenantService;
  auth: AuthService;
  downloads: DownloadRecorder;
  health: HealthService;
}

export function createServices(deps: ServerDeps): Services {
  const tenants = new TenantService(deps);
  const auth = new AuthService(deps);
  const downloads = new NoDownloadRecorder();
  const health = new HealthService(deps);
  return { tenants, auth, downloads, health };
}
