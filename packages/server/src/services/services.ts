import type { ServerDeps } from '../deps.js';
import { AuthService } from './auth-service.js';
import { DistTagService } from './dist-tags.js';
import { DocumentCache } from './document-cache.js';
import { NoDownloadRecorder, type DownloadRecorder } from './downloads.js';
import { PackageReadService } from './package-reads.js';
import { PackageUpdateService } from './package-updates.js';
import { PublishService } from './publish-service.js';
import { TenantService } from './tenant-service.js';

/** Bytes of pre-serialized package documents kept in memory. */
const DOCUMENT_CACHE_BYTES = 64 * 1024 * 1024;

/** The use cases of the registry, free of HTTP types; routes call exactly one of them each. */
export interface Services {
  tenants: TenantService;
  auth: AuthService;
  downloads: DownloadRecorder;
  packageReads: PackageReadService;
  publish: PublishService;
  packageUpdates: PackageUpdateService;
  distTags: DistTagService;
}

export function createServices(deps: ServerDeps): Services {
  const tenants = new TenantService(deps);
  const auth = new AuthService(deps);
  const downloads = new NoDownloadRecorder();
  const documents = new DocumentCache(deps.bus, DOCUMENT_CACHE_BYTES);
  return {
    tenants,
    auth,
    downloads,
    packageReads: new PackageReadService(deps, documents),
    publish: new PublishService(deps),
    packageUpdates: new PackageUpdateService(deps),
    distTags: new DistTagService(deps),
  };
}
