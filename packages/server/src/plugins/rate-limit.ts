import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isPublishBody } from '../services/publish-request.js';
import { rateLimitHeaders, type RateLimitService } from '../services/rate-limits.js';

/**
 * Counts every request against the caller's hourly limit (per user with a valid token, else per
 * client IP, which is the socket's peer unless it is a trusted proxy) and answers with the
 * X-RateLimit-* headers. A publish also counts against the publish limit once its body is
 * parsed, because only the body tells a publish from other writes to `PUT /<package>`.
 */
export function installRateLimits(app: FastifyInstance, limits: RateLimitService): void {
  app.addHook('onRequest', async (request, reply) => {
    const { tenant, caller, settings } = request.ctx;
    const state = caller
      ? await limits.count('authenticated', tenant, caller.user, settings.rateLimitAuthenticated)
      : await limits.count('anonymous', tenant, request.ip, settings.rateLimitAnonymous);
    if (state) reply.headers(rateLimitHeaders(state));
  });

  app.addHook('preValidation', async (request, reply) => {
    const { tenant, caller, settings } = request.ctx;
    if (!caller || !isPublish(request)) return;
    const state = await limits.count('publish', tenant, caller.user, settings.rateLimitPublish);
    if (state) reply.headers(rateLimitHeaders(state));
  });
}

/**
 * `PUT /<package>` whose body carries `_attachments`: what `npm publish` sends, told apart from
 * npm's other writes to that path (deprecate) as the publish route tells them apart.
 */
export function isPublish(request: FastifyRequest): boolean {
  if (request.method !== 'PUT') return false;
  const path = request.url.split('?')[0]!.replace(/\/+$/, '');
  if (!/^\/[^/]+$/.test(path) || path.startsWith('/-')) return false;
  return isPublishBody(request.body);
}
