import semver from 'semver';
import { affects } from '../services/advisories.js';
import type { UpstreamAdvisory } from '../services/uplinks/upstream-advisories.js';
import { safeHttpUrl } from './html.js';
import type { AdvisoryMark } from './package-view.js';
import { advisoriesPath } from './pages/urls.js';
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
    packages: new PackageViews(services.packageReads, new DependentsService(deps), async (tenant, name, versions, uplinks) => {
      const { own, upstream } = await services.advisories.ofPackage(tenant, name, versions, uplinks);
      const inForce = own.filter((advisory) => advisory.withdrawnAt === null);
      const theirs = upstream?.advisories ?? [];
      const marks = new Map<string, AdvisoryMark[]>();
      for (const version of versions) {
        const affecting = [
          ...inForce
            .filter((advisory) => affects(advisory, version))
            .map((advisory) => ({
              title: advisory.title,
              severity: advisory.severity,
              url: advisory.url ?? `${advisoriesPath(name)}#advisory-${encodeURIComponent(advisory.id)}`,
            })),
          // As the audit counts them: a range that cannot be read here affects every version.
          ...theirs
            .filter(
              (a) =>
                semver.validRange(a.vulnerable_versions) === null ||
                affects({ vulnerableVersions: a.vulnerable_versions }, version),
            )
            .map((advisory) => upstreamMark(advisory, upstream!.uplink)),
        ];
        if (affecting.length > 0) marks.set(version, affecting);
      }
      return marks;
    }),
    registry: services,
    now: deps.now,
    passwordMinLength: deps.config.passwordMinLength,
  };
}

/** An upstream's advisory as the pages show it: its own words where it has them, marked as the upstream's. */
export function upstreamMark(advisory: UpstreamAdvisory, uplink: string): AdvisoryMark & { id: string } {
  return {
    id: String(advisory.id),
    title: typeof advisory.title === 'string' && advisory.title !== '' ? advisory.title : `Advisory ${String(advisory.id)}`,
    severity: advisory.severity,
    url: safeHttpUrl(advisory.url),
    upstream: uplink,
  };
}
