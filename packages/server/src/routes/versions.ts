import type { Routes } from '../http/routes.js';
import { JSON_TYPE } from '../services/package-reads.js';
import { Representation } from '../services/representation.js';
import type { Services } from '../services/services.js';
import { packageNameParam } from './guards.js';
import { DOCUMENT_CACHE_CONTROL } from './packages.js';
import { sendRepresentation } from './send-representation.js';
import { STALE_HEADER } from '../services/uplinks/uplink-headers.js';

/** `GET /<name>/<version | dist-tag | range>`: one version record. */
export function versionRoutes(app: Routes, { services }: { services: Services }): void {
  app.get<{ Params: { name: string; version: string } }>('/:name/:version', async (request, reply) => {
    const name = packageNameParam(request.params.name);
    const scope = { tenant: request.ctx.tenant, tarballBaseUrl: request.ctx.tarballBaseUrl };
    // A covered package's document is fetched (or revalidated) first, as for GET /<name>.
    const uplink = request.ctx.settings.uplinks?.match(name);
    if (uplink !== undefined && (await services.uplinks.document(scope, uplink, name, 'full')).stale)
      reply.header(STALE_HEADER, 'true');
    const record = await services.packageReads.version(scope, name, request.params.version);
    // A tag or range may point elsewhere after the next write: same caching as the document.
    return sendRepresentation(request, reply, Representation.json(record, JSON_TYPE), { cacheControl: DOCUMENT_CACHE_CONTROL });
  });
}
