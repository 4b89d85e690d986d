/** A package served from an uplink: fresh, revalidated, stale and unavailable, the same both ways. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishBody, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import {
  closeTarget,
  comparePair,
  DEPENDENCIES,
  header,
  HIGH_LIMITS,
  NPM_ACCEPT,
  README,
  send,
  startTarget,
  type Case,
  type Target,
} from './harness.js';

describe('a package from an uplink', () => {
  const COVERED = 'com.upstream.hot';
  let upstream: TestRegistry;
  let target: Target;

  beforeAll(async () => {
    upstream = await startRegistry();
    const token = await loginUser(upstream.url, 'upstream-publisher');
    const { body } = publishBody(COVERED, '1.0.0', { readme: README, manifest: { dependencies: DEPENDENCIES } });
    expect((await request(`${upstream.url}/${COVERED}`, { method: 'PUT', token, body })).status).toBe(201);
    // maxAge 0: every request of a pair revalidates upstream, so both take the same way.
    const uplinks = [{ name: 'upstream', url: upstream.url, packages: ['com.upstream.*'], maxAge: 0, timeout: 5 }];
    target = await startTarget({ settings: { ...HIGH_LIMITS, uplinks: JSON.stringify(uplinks) } });
  });
  afterAll(async () => {
    await closeTarget(target);
    await upstream?.close().catch(() => undefined);
  });

  const tarball = `/${COVERED}/-/${COVERED}-1.0.0.tgz`;
  const cases: Case[] = [
    { label: 'the full document', exchange: () => ({ path: `/${COVERED}` }), status: 200 },
    {
      label: 'the abbreviated document, gzip',
      exchange: () => ({ path: `/${COVERED}`, headers: { accept: NPM_ACCEPT, 'accept-encoding': 'gzip' } }),
      status: 200,
    },
    { label: 'its tarball', exchange: () => ({ path: tarball }), status: 200 },
    { label: 'a covered name the upstream does not have', exchange: () => ({ path: '/com.upstream.none' }), status: 404 },
  ];
  it.each(cases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });

  it('with the upstream stopped: stale documents and 503s, the same both ways', async () => {
    await upstream.close();
    // Two failures, then the first request of the stale pair is the third: the circuit opens,
    // and both answers of each pair are given the same way (the stale one from memory).
    for (let i = 0; i < 2; i++) expect((await send(target, { path: `/com.upstream.warm-up-${i}` })).status).toBe(503);
    const stale = await comparePair(target, { path: `/${COVERED}` }, { status: 200 });
    expect(header(stale.fastify, 'x-uplink-stale')).toBe('true');
    const unavailable = await comparePair(target, { path: '/com.upstream.never-cached' }, { status: 503 });
    expect(header(unavailable.fastify, 'retry-after')).toBeDefined();
  });
});
