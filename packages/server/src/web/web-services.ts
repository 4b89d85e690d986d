import { affects } from '../services/advisories.js';
import { DependentsService } from '../services/dependents.js';
import type { ServerDeps } from '../deps.js';
import type { Services } from '../services/services.js';
import type { Assets } from './assets.js';
import { SearchCatalog, type WebCatalog } from './catalog.js';
import { PackageViews } from './package-view.js';

/**
 * What the web pages use: their assets, the view models they build over the registry's
 * services, and those services themselves (sign-in sessions, npm's web login, tokens). The
 * pages reach storage only through the services, as the API routes do.
 */
export interface WebServices {
  assets: Assets;
  catalog: WebCatalog;
  packages: PackageViews;
  /** The registry's own services. */
  registry: Services;
  /** The server's clock. */
  now: () => Date;
  /** The password policy's shortest password (the forms say it). */
  passwordMinLength: number;
}

export function createWebServices(
  services: Services,
  deps: Pick<ServerDeps, 'now' | 'packages' | 'config'>,
  assets: Assets,
): WebServices {
  return {
    assets,
    catalog: new SearchCatalog(services.search, deps.now),
    packages: new PackageViews(services.packageReads, new DependentsService(deps), async (tenant, name, version) =>
      (await services.advisories.list(tenant, name))
        .filter((advisory) => affects(advisory, version))
        .map((advisory) => ({
          title: advisory.title,
          severity: advisory.severity,
          url: advisory.url ?? `#advisory-${advisory.id}`,
        })),
    ),
    registry: services,
    now: deps.now,
    passwordMinLength: deps.config.passwordMinLength,
  };
}
