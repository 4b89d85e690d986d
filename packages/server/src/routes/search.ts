import { Readable } from 'node:stream';
import type { Routes } from '../http/routes.js';
import { parseSearchRequest } from '../search/search-query.js';
import type { RequestContext } from '../context.js';
import { JSON_UTF8, sendAnswerOf, type Answer } from '../http/answer.js';
import type { Services } from '../services/services.js';
import { packageAllowed } from '../services/token-scope.js';

/** `GET /-/v1/search` (npm search, the Unity Editor's per-scope listing) and `GET /-/all`. */
export function searchRoutes(app: Routes, { services }: { services: Services }): void {
  app.get('/-/v1/search', (request, reply) =>
    sendAnswerOf(reply, searchAnswer(services, request.ctx, request.query as Record<string, unknown>)),
  );

  // The Unity Editor falls back to this when search answers 404; npm's legacy full listing.
  app.get('/-/all', async (request, reply) => {
    const scope = request.ctx.caller?.scope;
    const visible = scope?.packages ? (name: string) => packageAllowed(scope, name) : undefined;
    const body = Readable.from(services.search.allPackages(request.ctx.tenant, visible));
    return reply.type('application/json').header('cache-control', 'no-cache').send(body);
  });
}

/** The answer to `GET /-/v1/search` with the parsed query string (400 for a bad one). */
export async function searchAnswer(services: Services, ctx: RequestContext, query: Record<string, unknown>): Promise<Answer> {
  const request = parseSearchRequest(query);
  const scope = ctx.caller?.scope;
  if (scope?.packages) {
    // Live results of uplinks are left out: they could not be counted into `total` alike.
    const body = await services.search.searchBodyWithin(ctx.tenant, request, (name) => packageAllowed(scope, name));
    return { status: 200, headers: { 'content-type': JSON_UTF8 }, body };
  }
  let body = await services.search.searchBody(ctx.tenant, request);
  const uplinks = ctx.settings.uplinks;
  if (uplinks !== undefined && uplinks.searching.length > 0) {
    const live = { text: String(query.text), size: request.size, from: request.from };
    body = await services.uplinks.withLiveSearch(ctx.tenant, uplinks, body, live);
  }
  return { status: 200, headers: { 'content-type': JSON_UTF8 }, body };
}
