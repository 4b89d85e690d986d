import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BeforeStepRun, Step, StepReply } from '../http/request-steps.js';
import { isPublishBody } from '../services/publish-request.js';
import type { LimitState, RateLimitService } from '../services/rate-limits.js';

/**
 * Counts every request against the caller's hourly limit (per user with a valid token, else per
 * client IP, which is the socket's peer unless it is a trusted proxy) and answers with the
 * X-RateLimit-* headers. A publish also counts against the publish limit once its body is
 * parsed (installPublishRateLimit), because only the body tells a publish from other writes to
 * `PUT /<package>`.
 */
export function rateLimitStep(limits: RateLimitService): Step<BeforeStepRun> {
  return {
    name: 'rateLimit',
    // With counters in memory a request is counted without a promise.
    run(request, reply) {
      if (request.routeOptions.config?.unmetered === true) return undefined;
      const { tenant, caller, settings } = request.ctx;
      const counted = caller
        ? limits.count('authenticated', tenant, caller.user, settings.rateLimitAuthenticated)
        : limits.count('anonymous', tenant, request.ip, settings.rateLimitAnonymous);
      if (counted instanceof Promise) return counted.then((state) => setHeaders(reply, state));
      return setHeaders(reply, counted);
    },
  };
}

/** Counts a publish against the publish limit, once its body is parsed (a fastify-only hook). */
export function installPublishRateLimit(app: FastifyInstance, limits: RateLimitService): void {
  app.addHook('preValidation', function publishRateLimit(request, reply, done) {
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

function setHeaders(reply: StepReply, state: LimitState | undefined): undefined {
  if (state === undefined) return undefined;
  reply.header('x-ratelimit-limit', String(state.limit));
  reply.header('x-ratelimit-remaining', String(state.remaining));
  reply.header('x-ratelimit-reset', String(state.reset));
  return undefined;
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
