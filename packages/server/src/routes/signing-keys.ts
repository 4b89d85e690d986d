import type { Routes } from '../http/routes.js';
import type { Services } from '../services/services.js';

/**
 * `GET /-/npm/v1/keys`: the registry's public signing keys in npm's format, rotated ones with
 * their `expires` (npm's `audit signatures` and corepack read it), then the uplinks' keys, which
 * verify the upstream signatures that proxied packages keep.
 */
export function signingKeyRoutes(app: Routes, { services }: { services: Services }): void {
  app.get('/-/npm/v1/keys', async (request, reply) => {
    reply.header('cache-control', 'no-cache');
    const own = await services.signatures.publicKeys(request.ctx.tenant);
    const uplinks = request.ctx.settings.uplinks?.uplinks ?? [];
    const upstream = uplinks.length > 0 ? await services.upstreamKeys.keysOf(uplinks) : [];
    const seen = new Set(own.map((key) => key.keyid));
    return { keys: [...own, ...upstream.filter((key) => !seen.has(key.keyid) && seen.add(key.keyid))] };
  });
}
