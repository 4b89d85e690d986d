import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isPublishBody } from '../services/publish-request.js';
import type { LimitState, RateLimitService } from '../services/rate-limits.js';

/**
 * Counts every request against the caller's hourly limit (per user with a valid token, else per
 * client IP, which is the socket's peer unless it is a trusted proxy) and answers with the
 * X-RateLimit-* headers. A publish also counts against the publish limit once its body is
 * parsed, because only the body tells a publish from other writes to `PUT /<package>`.
 */
export function installRateLimits(app: FastifyInstance, limits: RateLimitService): void {
  // Callback-style: with counters in memory a request is counted without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config?.unmetered === true) return done();
    const { tenant, caller, settings } = request.ctx;
    let counted;
    try {
      counted = caller
        ? limits.count('authenticated', tenant, caller.user, settings.rateLimitAuthenticated)
        : limits.count('anonymous', tenant, request.ip, settings.rateLimitAnonymous);
    } catch (err) {
      return done(err as Error);
    }
    if (counted instanceof Promise) {
      counted.then((state) => {
        if (state) setHeaders(reply, state);
        done();
      }, done);
      return;
    }
    if (counted) setHeaders(reply, counted);
    done();
  });

  app.addHook('preValidation', (request, reply, done) => {
    const { tenant, caller, settings } = request.ctx;
    if (!caller || !isPublish(request)) return done();
    let counted;
    try {
      counted = limits.count('publish', tenant, caller.user, settings.rateLimitPublish);
    } catch (err) {
      return done(err as Error);
    }
    Promise.resolve(counted).then((state) => {
      if (state) setHeaders(reply, state);
      done();
    }, done);
  });
}

function setHeaders(reply: FastifyReply, state: LimitState): void {
  reply.header('X-RateLimit-Limit', state.limit);
  reply.header('X-RateLimit-Remaining', state.remaining);
  reply.header('X-RateLimit-Reset', state.reset);
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
