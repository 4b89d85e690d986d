/** Past the rate limit: the 429 answers of both paths. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loginUser } from '@pkg/testkit';
import {
  bearer,
  closeTarget,
  comparePair,
  header,
  HOT,
  publishOn,
  README,
  startTarget,
  UNKNOWN,
  type Target,
} from './harness.js';

describe('past the rate limit', () => {
  let target: Target;

  beforeAll(async () => {
    // Redis counts windows by its own clock; in memory, with the clock stopped, Retry-After and
    // the window's end are the same for every request.
    target = await startTarget({ profile: 'embedded', settings: { rateLimitAnonymous: 3, rateLimitAuthenticated: 3 } });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await closeTarget(target);
  });

  it('the 429 answers (Retry-After, X-RateLimit-*) are the same, anonymous and authenticated', async () => {
    const { url } = target.registry;
    // Logging in is an anonymous request (1 of 3); publishing an authenticated one (1 of 3).
    const token = await loginUser(url, 'limited');
    await publishOn(url, new URL(url).host, token, HOT, '1.0.0', { readme: README });

    // Anonymous requests 2 and 3: the last ones allowed.
    await comparePair(target, { path: `/${HOT}` }, { status: 200 });
    const { fastify } = await comparePair(target, { path: `/${HOT}` }, { status: 429 });
    expect(header(fastify, 'retry-after')).toBe('3600');
    await comparePair(target, { path: `/${HOT}/-/${HOT}-1.0.0.tgz` }, { status: 429 });
    await comparePair(target, { path: '/-/whoami' }, { status: 429 });
    await comparePair(target, { path: `/${UNKNOWN}`, headers: { 'accept-encoding': 'gzip' } }, { status: 429 });

    // The user's requests 2 and 3, then 429.
    await comparePair(target, { path: '/-/whoami', headers: bearer(token) }, { status: 200 });
    await comparePair(target, { path: '/-/whoami', headers: bearer(token) }, { status: 429 });
    await comparePair(target, { path: `/${HOT}`, headers: bearer(token) }, { status: 429 });
    // Fastify answers the 429 of requests the hot path leaves to it alike.
    await comparePair(target, { method: 'HEAD', path: `/${HOT}` }, { status: 429, hot: false });
  });
});
