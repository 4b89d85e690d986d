/** A registry whose reads need a token (readAccess: token). */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { loginUser } from '@pkg/testkit';
import {
  bearer,
  closeTarget,
  comparePair,
  HIGH_LIMITS,
  HOT,
  publishOn,
  README,
  startTarget,
  UNKNOWN,
  type Case,
  type Target,
} from './harness.js';

describe('readAccess: token', () => {
  let target: Target;
  let token: string;

  beforeAll(async () => {
    target = await startTarget({ settings: { ...HIGH_LIMITS, readAccess: 'token' } });
    const { url } = target.registry;
    token = await loginUser(url, 'reader');
    await publishOn(url, new URL(url).host, token, HOT, '1.0.0', { readme: README });
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  const cases: Case[] = [
    { label: 'anonymous document', exchange: () => ({ path: `/${HOT}` }), status: 401 },
    { label: 'anonymous unknown package', exchange: () => ({ path: `/${UNKNOWN}` }), status: 401 },
    { label: 'anonymous tarball', exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz` }), status: 401 },
    { label: 'anonymous whoami', exchange: () => ({ path: '/-/whoami' }), status: 401 },
    {
      label: 'document with a garbage token',
      exchange: () => ({ path: `/${HOT}`, headers: bearer('not-a-real-token-0123456789') }),
      status: 401,
    },
    { label: 'document with a token', exchange: () => ({ path: `/${HOT}`, headers: bearer(token) }), status: 200 },
    {
      label: 'gzip document with a token',
      exchange: () => ({ path: `/${HOT}`, headers: { ...bearer(token), 'accept-encoding': 'gzip' } }),
      status: 200,
    },
    { label: 'unknown package with a token', exchange: () => ({ path: `/${UNKNOWN}`, headers: bearer(token) }), status: 404 },
    {
      label: 'tarball with a token',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: bearer(token) }),
      status: 200,
    },
    { label: 'whoami with a token', exchange: () => ({ path: '/-/whoami', headers: bearer(token) }), status: 200 },
  ];

  it.each(cases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });
});
