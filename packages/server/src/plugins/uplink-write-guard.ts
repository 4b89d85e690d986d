import type { RouteRequest } from '../http/route-request.js';
import type { Routes } from '../http/routes.js';
import { coveredNameRefused } from '../services/uplinks/uplink-guard.js';

/**
 * Refuses every write (publish, dist-tags, deprecate, unpublish, owners) to a package name an
 * uplink covers: a namespace is either local or proxied, so nobody can publish here a name that
 * builds expect from the upstream (dependency confusion), and versions are never merged.
 */
export function installUplinkGuard(routes: Routes): void {
  // Only on the routes that write: a read pays nothing for it.
  routes.onRoute((route) => {
    if (route.method === 'GET' || route.method === 'HEAD') return;
    route.guards.push(uplinkWriteGuard);
  });
}

function uplinkWriteGuard(request: RouteRequest): Error | undefined {
  const name = (request.params as { name?: unknown } | undefined)?.name;
  const uplink = typeof name === 'string' ? request.ctx.settings.uplinks?.match(name) : undefined;
  return uplink === undefined ? undefined : coveredNameRefused(name as string, uplink);
}
