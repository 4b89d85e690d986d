import type { BeforeStepRun, Step, StepReply } from '../http/request-steps.js';
import { WEB_ASSET_FACTOR, type LimitState, type RateLimitService } from '../services/rate-limits.js';

/**
 * Counts every request against the caller's hourly limit (per user with a valid token, else per
 * client IP, which is the socket's peer unless it is a trusted proxy) and answers with the
 * X-RateLimit-* headers. Web pages and their assets (routes whose config names a `budget`)
 * count per client IP against the web budget instead. A publish also counts against the publish
 * limit, before its body is read (services/package-put.ts).
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
      if (counted instanceof Promise) return counted.then((state) => setLimitHeaders(reply, state));
      return setLimitHeaders(reply, counted);
    },
  };
}

/** The X-RateLimit-* headers of where the caller stands. */
export function setLimitHeaders(reply: StepReply, state: LimitState | undefined): undefined {
  if (state === undefined) return undefined;
  reply.header('x-ratelimit-limit', String(state.limit));
  reply.header('x-ratelimit-remaining', String(state.remaining));
  reply.header('x-ratelimit-reset', String(state.reset));
  return undefined;
}
