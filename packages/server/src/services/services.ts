import type { ServerDeps } from '../deps.js';
import { AuthService } from './auth-service.js';
import { NoDownloadRecorder, type DownloadRecorder } from './downloads.js';
import { TenantService } from './tenant-service.js';

/** The use cases of the registry, free of HTTP types; routes call exactly one of them each. */
export interface Services {
  tenants: TenantService;
  auth: AuthService;
  downloads: DownloadRecorder;
}

export function createServices(deps: ServerDeps): Services {
  const tenants = new TenantService(deps);
  const auth = new AuthService(deps);
  const downloads = new NoDownloadRecorder();
  return { tenants, auth, downloads };
}
