import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { parseSearchRequest } from '../search/search-query.js';
import type { Services } from '../services/services.js';

/** `GET /-/v1/search` (npm search, the Unity Editor's per-scope listing) and `GET /-/all`. */
export async function searchRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get('/-/v1/search', async (request, reply) => {
    const search = parseSearchRequest(request.query as Record<string, unknown>);
    const body = await services.search.searchJson(request.ctx.tenant, search);
    return reply.type('application/json; charset=utf-8').send(body);
  });

  // The Unity Editor falls back to this when search answers 404; npm's legacy full listing.
  app.get('/-/all', async (request, reply) => {
    const body = Readable.from(services.search.allPackages(request.ctx.tenant));
    return reply.type('application/json').header('cache-control', 'no-cache').send(body);
  });
}
