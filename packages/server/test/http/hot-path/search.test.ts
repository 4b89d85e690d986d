/** Search requests, which the hot path answers when their query string is plain. */
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { loginUser } from '@pkg/testkit';
import {
  closeTarget,
  comparePair,
  HIGH_LIMITS,
  HOT,
  publishOn,
  README,
  SIGNED,
  startTarget,
  type Case,
  type Target,
} from './harness.js';

describe('search', () => {
  let target: Target;

  beforeAll(async () => {
    target = await startTarget({ settings: HIGH_LIMITS });
    const { url } = target.registry;
    const token = await loginUser(url, 'searcher');
    await publishOn(url, new URL(url).host, token, HOT, '1.0.0', { readme: README, manifest: { keywords: ['hot'] } });
    await publishOn(url, new URL(url).host, token, SIGNED, '1.0.0', { readme: README });
    // Search answers carry the time they were made: one instant for both answers of a pair.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await closeTarget(target);
  });

  const cases: Case[] = [
    { label: 'one word', exchange: () => ({ path: '/-/v1/search?text=hot&size=5' }), status: 200 },
    {
      label: 'a scope listing, as the Unity Editor sends it',
      exchange: () => ({ path: '/-/v1/search?text=com.acme&from=0&size=250' }),
      status: 200,
    },
    { label: 'percent-encoded text', exchange: () => ({ path: '/-/v1/search?text=keywords%3Ahot' }), status: 200 },
    { label: 'no query string', exchange: () => ({ path: '/-/v1/search' }), status: 400 },
    { label: 'an empty query string', exchange: () => ({ path: '/-/v1/search?' }), status: 400 },
    { label: 'a size that is no number', exchange: () => ({ path: '/-/v1/search?text=hot&size=many' }), status: 400 },
    { label: 'text given twice', exchange: () => ({ path: '/-/v1/search?text=hot&text=acme' }), status: 400 },
    { label: 'nothing found', exchange: () => ({ path: '/-/v1/search?text=zzzzzzzz' }), status: 200 },
  ];
  it.each(cases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });

  const fallThrough: Case[] = [
    { label: 'a fragment', exchange: () => ({ path: '/-/v1/search?text=hot#x' }), status: 200 },
    { label: 'a semicolon', exchange: () => ({ path: '/-/v1/search?text=hot;x' }), status: 200 },
    { label: 'a trailing slash', exchange: () => ({ path: '/-/v1/search/?text=hot' }), status: 200 },
  ];
  it.each(fallThrough)('$label: left to fastify', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status, hot: false });
  });
});
