import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BeforeStepRun, Step, StepReply } from '../http/request-steps.js';
import { isPublishBody } from '../services/publish-request.js';
import { WEB_ASSET_FACTOR, type LimitState, type RateLimitService } from '../services/rate-limits.js';

/**
 * Counts every request against the caller's hourly limit (per user with a valid token, else per
 * client IP, which is the socket's peer unless it is a trusted proxy) and answers with the
 * X-RateLimit-* headers. Web pages and their assets (routes whose config names a `budget`)
 * count per client IP against the web budget instead. A publish also counts against the publish limit once its body is
 * parsed (installPublishRateLimit), because only the body tells a publish from other writes to
 * `PUT /<package>`; a publish answered 4xx (refused, including over the limit) is taken back
 * from that count.
 */
export function rateLimitStep(limits: RateLimitService): Step<BeforeStepRun> {
  return {
    name: 'rateLimit',
    // With counters in memory a request is counted without a promise.
    run(request, reply) {
      const config = request.routeOptions.config;
      if (config?.unmetered === true) return undefined;
      const { tenant, caller, settings } = request.ctx;
      // Web pages count per address whoever is signed in: the office behind one address is the case to serve.
      const counted =
        config?.budget === 'page'
          ? limits.count('web', tenant, request.ip, settings.rateLimitWeb)
          : config?.budget === 'asset'
            ? limits.count('webAsset', tenant, request.ip, settings.rateLimitWeb * WEB_ASSET_FACTOR)
            : caller
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
    if (!request.ctx.caller || !isPublish(request)) return done();
    countPublish(request, reply, limits).then(() => done(), done);
  });

  app.addHook('onResponse', function refundRefusedPublish(request, reply, done) {
    if (!countedPublishes.has(request) || reply.statusCode < 400 || reply.statusCode >= 500) return done();
    const { tenant, caller, settings } = request.ctx;
    // After the answer: the refund never delays it, and a failed refund only costs the caller one count.
    limits.refund('publish', tenant, caller!.user, settings.rateLimitPublish).then(
      () => done(),
      (err: unknown) => {
        request.log.warn({ err }, 'could not take back a refused publish from the publish limit');
        done();
      },
    );
  });
}

/**
 * Counts a publish against the caller's publish limit (429 beyond it). The publish route, which
 * reads its body as a stream, calls it once the body has shown the request is a publish.
 */
export async function countPublish(request: FastifyRequest, reply: StepReply, limits: RateLimitService): Promise<void> {
  const { tenant, caller, settings } = request.ctx;
  if (!caller) return;
  // Before counting: a 429 counted too and is taken back like any other refusal.
  countedPublishes.add(request);
  setHeaders(reply, await limits.count('publish', tenant, caller.user, settings.rateLimitPublish));
}

function setHeaders(reply: StepReply, state: LimitState | undefined): undefined {
  if (state === undefined) return undefined;
  reply.header('x-ratelimit-limit', String(state.limit));
  reply.header('x-ratelimit-remaining', String(state.remaining));
  reply.header('x-ratelimit-reset', String(state.reset));
  return undefined;
}

/** Requests counted against the publish limit, so that a refused one is taken back. */
const countedPublishes = new WeakSet<FastifyRequest>();

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
