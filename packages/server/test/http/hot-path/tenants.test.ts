/** Tenant hosts, named by Host or by a trusted proxy's X-Forwarded-* headers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import { loginOn, registryHost } from '@pkg/testkit';
import {
  bearer,
  closeTarget,
  comparePair,
  DEPENDENCIES,
  DOMAIN,
  HIGH_LIMITS,
  HOT,
  NPM_ACCEPT,
  publishOn,
  README,
  requestLinesSince,
  startTarget,
  UNKNOWN,
  type Case,
  type Target,
} from './harness.js';

describe('tenant hosts, behind a trusted proxy', () => {
  let target: Target;
  let tenantToken: string;
  let globalToken: string;
  const host = (name: string) => `${name}:${target.registry.port}`;

  beforeAll(async () => {
    target = await startTarget({ settings: { ...HIGH_LIMITS, registryDomain: DOMAIN, trustProxy: 'true' } });
    const { registry } = target;
    const admin = new TenantAdmin(registry.storage);
    await admin.create('a', {});
    await admin.create('private', { readAccess: 'token' });
    tenantToken = await loginOn(registryHost(registry.url, `a.${DOMAIN}`), 'tenant-user');
    globalToken = await loginOn(registryHost(registry.url, DOMAIN), 'global-user');
    await publishOn(registry.url, host(`a.${DOMAIN}`), tenantToken, HOT, '1.0.0', {
      manifest: { dependencies: DEPENDENCIES },
      readme: README,
    });
  });
  afterAll(async () => {
    await closeTarget(target);
  });

  const forwarded = (forwardedHost: string, extra: Record<string, string> = {}) => ({
    'x-forwarded-host': forwardedHost,
    'x-forwarded-proto': 'https',
    'x-forwarded-for': '203.0.113.7',
    ...extra,
  });

  const cases: Case[] = [
    { label: 'tenant document', exchange: () => ({ path: `/${HOT}`, headers: { host: host(`a.${DOMAIN}`) } }), status: 200 },
    {
      label: 'tenant abbreviated document, gzip',
      exchange: () => ({
        path: `/${HOT}`,
        headers: { host: host(`a.${DOMAIN}`), accept: NPM_ACCEPT, 'accept-encoding': 'gzip' },
      }),
      status: 200,
    },
    {
      label: 'tenant document with a token',
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(`a.${DOMAIN}`), ...bearer(tenantToken) } }),
      status: 200,
    },
    {
      label: 'tenant unknown package',
      exchange: () => ({ path: `/${UNKNOWN}`, headers: { host: host(`a.${DOMAIN}`) } }),
      status: 404,
    },
    {
      label: 'tenant tarball',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: { host: host(`a.${DOMAIN}`) } }),
      status: 200,
    },
    {
      label: 'tenant whoami',
      exchange: () => ({ path: '/-/whoami', headers: { host: host(`a.${DOMAIN}`), ...bearer(tenantToken) } }),
      status: 200,
    },
    {
      label: 'tenant whoami with a token of the global registry',
      exchange: () => ({ path: '/-/whoami', headers: { host: host(`a.${DOMAIN}`), ...bearer(globalToken) } }),
      status: 401,
    },
    {
      label: "the bare domain (global registry) does not have the tenant's package",
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(DOMAIN) } }),
      status: 404,
    },
    {
      label: 'global whoami on the bare domain',
      exchange: () => ({ path: '/-/whoami', headers: { host: host(DOMAIN), ...bearer(globalToken) } }),
      status: 200,
    },
    {
      label: 'host names are case-insensitive',
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(`A.Registry.TEST`) } }),
      status: 200,
    },
    {
      label: 'unknown tenant: document',
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(`nope.${DOMAIN}`) } }),
      status: 404,
    },
    {
      label: 'unknown tenant: tarball',
      exchange: () => ({ path: `/${HOT}/-/${HOT}-1.0.0.tgz`, headers: { host: host(`nope.${DOMAIN}`) } }),
      status: 404,
    },
    {
      label: 'unknown tenant: whoami',
      exchange: () => ({ path: '/-/whoami', headers: { host: host(`nope.${DOMAIN}`), ...bearer(tenantToken) } }),
      status: 404,
    },
    {
      label: 'token-only tenant: anonymous document',
      exchange: () => ({ path: `/${HOT}`, headers: { host: host(`private.${DOMAIN}`) } }),
      status: 401,
    },
    {
      label: 'whoami: registry URL from X-Forwarded-Host and X-Forwarded-Proto, IP from X-Forwarded-For',
      exchange: () => ({ path: '/-/whoami', headers: forwarded(`a.${DOMAIN}`, bearer(tenantToken)) }),
      status: 200,
    },
    {
      label: 'document: tarball URLs from X-Forwarded-Host and X-Forwarded-Proto',
      exchange: () => ({ path: `/${HOT}`, headers: forwarded(`a.${DOMAIN}`) }),
      status: 200,
    },
    {
      label: 'document: several X-Forwarded-For hops',
      exchange: () => ({
        path: `/${HOT}`,
        headers: forwarded(`a.${DOMAIN}`, { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' }),
      }),
      status: 200,
    },
    {
      label: 'X-Forwarded-Host naming an unknown tenant',
      exchange: () => ({ path: `/${HOT}`, headers: forwarded(`nope.${DOMAIN}`) }),
      status: 404,
    },
  ];

  it.each(cases)('$label: the hot path answers as fastify does', async (c) => {
    await comparePair(target, c.exchange(), { status: c.status });
  });

  it('the forwarded headers make the URL and the logged IP', async () => {
    const mark = target.registry.logLines.length;
    const { fastify } = await comparePair(
      target,
      { path: '/-/whoami', headers: forwarded(`a.${DOMAIN}`, bearer(tenantToken)) },
      { status: 200 },
    );
    expect(JSON.parse(fastify.body.toString('utf8')).registry).toBe(`https://a.${DOMAIN}/`);
    const lines = requestLinesSince(target.registry, mark);
    expect(lines.map((line) => [line.ip, line.tenant, line.user])).toEqual([
      ['203.0.113.7', 'a', 'tenant-user'],
      ['203.0.113.7', 'a', 'tenant-user'],
    ]);
  });
});
