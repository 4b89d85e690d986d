import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';
import { packageNameParam } from './guards.js';
import { wantsAbbreviated } from './negotiation.js';
import { sendRepresentation } from './send-representation.js';

/** Package documents may change on any write: clients and proxies revalidate after five minutes. */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=300';

/** `GET /<name>`: the package document, full or abbreviated; `?write=true` reads it uncached. */
export async function packageRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get<{ Params: { name: string }; Querystring: { write?: unknown } }>('/:name', async (request, reply) => {
    const name = packageNameParam(request.params.name);
    const scope = { tenant: request.ctx.tenant, tarballBaseUrl: request.ctx.tarballBaseUrl };
    // npm reads `?write=true` right before it sends a change: it must see the latest revision.
    if (request.query.write === 'true') {
      const fresh = await services.packageReads.freshDocument(scope, name);
      return sendRepresentation(request, reply, fresh, { cacheControl: 'private, no-store', vary: ['Accept'] });
    }
    const form = wantsAbbreviated(request.headers.accept) ? 'abbreviated' : 'full';
    const representation = await services.packageReads.document(scope, name, form);
    return sendRepresentation(request, reply, representation, { cacheControl: DOCUMENT_CACHE_CONTROL, vary: ['Accept'] });
  });
}
