import { ProtocolError } from '@pkg/protocol';
import type { CounterState, CounterStore } from '../storage/counter-store.js';
import type { TenantId } from '../storage/ports.js';
import { singleIncarnation, type TenantScopeOf } from './tenant-scope.js';

export type LimitKind = 'anonymous' | 'authenticated' | 'publish' | 'web' | 'webAsset';

/** Where a caller stands against one limit after a request was counted. */
export interface LimitState {
  kind: LimitKind;
  limit: number;
  remaining: number;
  /** Unix time in seconds at which the window ends. */
  reset: number;
}

const WINDOW_SECONDS = 3600;

const DESCRIPTION: Record<LimitKind, (limit: number) => string> = {
  anonymous: (limit) => `anonymous limit of ${limit} requests per hour per IP`,
  authenticated: (limit) => `authenticated limit of ${limit} requests per hour per user`,
  publish: (limit) => `publish limit of ${limit} publishes per hour per user`,
  web: (limit) => `page limit of ${limit} web pages per hour per IP`,
  webAsset: (limit) => `asset limit of ${limit} web page files per hour per IP`,
};

/**
 * A page's assets get this many times the page budget: a limited page must still load its
 * stylesheet to say, readably, when to come back. Browsers cache the content-hashed assets for
 * a year, so only a client that ignores caches comes near it.
 */
export const WEB_ASSET_FACTOR = 3;

/**
 * The hourly request limits: anonymous callers per client IP, authenticated callers per user,
 * publishes per user, and the web interface's pages and their assets per client IP (a budget of
 * their own, so that browsing never uses up the API's limit nor the API the browsing). Counters are per registry: the tenant is part of every key.
 */
export class RateLimitService {
  readonly #counters: CounterStore;

  readonly #scopeOf: TenantScopeOf;

  constructor(counters: CounterStore, scopeOf: TenantScopeOf = singleIncarnation) {
    this.#counters = counters;
    this.#scopeOf = scopeOf;
  }

  /**
   * Counts one request of `subject` (an IP or a user) against `limit`; undefined when the limit
   * is 0 (disabled). Past the limit: 429 RATE_LIMIT_EXCEEDED with Retry-After. Answers at once
   * (no promise) when the counters are in process memory.
   */
  count(
    kind: LimitKind,
    tenant: TenantId,
    subject: string,
    limit: number,
  ): LimitState | undefined | Promise<LimitState | undefined> {
    if (limit <= 0) return undefined;
    const key = `${kind}\0${this.#scopeOf(tenant)}\0${subject}`;
    const counters = this.#counters;
    if (counters.incrementNow) return judge(kind, limit, counters.incrementNow(key, WINDOW_SECONDS));
    return counters.increment(key, WINDOW_SECONDS).then((counter) => judge(kind, limit, counter));
  }

  /**
   * Takes back one count of `subject` against the `kind` limit: a publish the registry refused
   * (4xx) is not a publish, so that bad documents do not use up a publisher's hour.
   */
  async refund(kind: LimitKind, tenant: TenantId, subject: string, limit: number): Promise<void> {
    if (limit <= 0) return;
    await this.#counters.decrement(`${kind}\0${this.#scopeOf(tenant)}\0${subject}`, WINDOW_SECONDS);
  }
}

function judge(kind: LimitKind, limit: number, counter: CounterState): LimitState {
  const state: LimitState = {
    kind,
    limit,
    remaining: Math.max(0, limit - counter.count),
    reset: Math.ceil(counter.resetAt / 1000),
  };
  if (counter.count > limit) {
    const retryAfter = Math.max(1, Math.ceil((counter.resetAt - Date.now()) / 1000));
    throw new ProtocolError('RATE_LIMIT_EXCEEDED', `${DESCRIPTION[kind](limit)} exceeded; retry in ${retryAfter} s`, {
      'Retry-After': String(retryAfter),
      ...rateLimitHeaders(state),
    });
  }
  return state;
}

export function rateLimitHeaders(state: LimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
}
