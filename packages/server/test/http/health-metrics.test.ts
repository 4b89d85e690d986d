import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishBody,
  publishVersion,
  request,
  startOwnRedisServer,
  startRegistry,
  startScaleOutBacking,
  testPostgresUrl,
  testRedisUrl,
  type TestRegistry,
} from '@pkg/testkit';

let registries: TestRegistry[] = [];
afterEach(async () => {
  for (const registry of registries) await registry.close();
  registries = [];
});

async function start(...args: Parameters<typeof startRegistry>): Promise<TestRegistry> {
  const registry = await startRegistry(...args);
  registries.push(registry);
  return registry;
}

describe('GET /-/health', () => {
  it('answers 200 ok when the database and the storage answer', async () => {
    const registry = await start({ profile: 'embedded' });
    const res = await request(`${registry.url}/-/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      status: 'ok',
      checks: { database: { ok: true }, storage: { ok: true } },
    });
    expect(res.body.checks.redis).toBeUndefined();
    expect(typeof res.body.checks.database.ms).toBe('number');
  });

  it('answers 503 when the tarball storage is gone, without naming paths', async () => {
    const registry = await start({ profile: 'embedded' });
    await rm(path.join(registry.dataDir, 'tarballs'), { recursive: true, force: true });
    const res = await request(`${registry.url}/-/health`);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'unavailable', checks: { database: { ok: true }, storage: { ok: false } } });
    expect(res.body.checks.storage).toMatchObject({ state: 'down', code: 'ENOENT' });
    expect(res.body.checks.storage.error).toBe('tarball storage: the directory is missing (an unmounted volume?)');
    expect(res.text).not.toContain(registry.dataDir);
  });

  it('answers 503 when the database is closed', async () => {
    const registry = await start({ profile: 'embedded' });
    await registry.storage.database.close();
    const res = await request(`${registry.url}/-/health`);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'unavailable', checks: { database: { ok: false }, storage: { ok: true } } });
    expect(res.body.checks.database).toMatchObject({ state: 'down', error: 'database: the database is closed' });
  });

  it.skipIf(!testPostgresUrl || !testRedisUrl)(
    'on PostgreSQL + S3 + Redis: ok, then degraded but serving while Redis is down',
    async () => {
      const redis = await startOwnRedisServer();
      const backing = await startScaleOutBacking();
      try {
        const registry = await start({ profile: 'embedded', settings: { ...backing.settings, redis: redis.url } });
        const ok = await request(`${registry.url}/-/health`);
        expect(ok.status).toBe(200);
        expect(ok.body).toMatchObject({
          status: 'ok',
          checks: { database: { ok: true }, storage: { ok: true }, redis: { ok: true } },
        });
        await redis.stop();
        const degraded = await request(`${registry.url}/-/health`);
        expect(degraded.status).toBe(200);
        expect(degraded.body).toMatchObject({ status: 'degraded', checks: { database: { ok: true }, redis: { ok: false } } });
        expect(degraded.text).not.toContain('127.0.0.1');
      } finally {
        await redis.close();
        for (const registry of registries) await registry.close();
        registries = [];
        await backing.close();
      }
    },
  );
});

describe('GET /-/metrics', () => {
  it('serves Prometheus text with request counts and latencies by route pattern and status', async () => {
    const registry = await start({ profile: 'embedded' });
    await request(`${registry.url}/-/ping`);
    await request(`${registry.url}/-/ping`);
    await request(`${registry.url}/-/no/such/route`);
    const res = await request(`${registry.url}/-/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toContain('pkg_registry_http_requests_total{method="GET",route="/-/ping",status="200"} 2');
    expect(res.text).toContain('pkg_registry_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(res.text).toMatch(
      /pkg_registry_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/-\/ping",status="200"\} \d/,
    );
    expect(res.text).toContain('pkg_registry_publishes_total 0');
    expect(res.text).toContain('pkg_registry_invalidation_bus_connected 1');
    expect(res.text).toContain('pkg_registry_process_resident_memory_bytes');
    // Raw URLs never become labels.
    expect(res.text).not.toContain('/-/no/such/route');
  });
});

describe('probes and scrapes', () => {
  it('need no token and are never rate limited; 429s are counted by route', async () => {
    const registry = await start({ profile: 'embedded', settings: { rateLimitAnonymous: 2, readAccess: 'token' } });
    for (let i = 0; i < 5; i++) {
      expect((await request(`${registry.url}/-/health`)).status).toBe(200);
      expect((await request(`${registry.url}/-/metrics`)).status).toBe(200);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await request(`${registry.url}/-/ping`)).status);
    expect(statuses).toEqual([200, 200, 429]);
    const metrics = await request(`${registry.url}/-/metrics`);
    expect(metrics.text).toContain('pkg_registry_rate_limit_rejections_total{route="/-/ping"} 1');
  });
});

describe('publish and cache metrics', () => {
  it('counts publishes (not retries) and document cache hits and misses', async () => {
    const registry = await start({ profile: 'embedded' });
    const token = await loginUser(registry.url, 'ada');
    expect((await publishVersion(registry.url, token, 'com.acme.metrics', '1.0.0')).status).toBe(201);
    const { body } = publishBody('com.acme.metrics', '1.0.0');
    // The same version again (npm retries a PUT after a 5xx): 200, not counted.
    expect((await request(`${registry.url}/com.acme.metrics`, { method: 'PUT', token, body })).status).toBe(200);
    expect((await publishVersion(registry.url, token, 'com.acme.metrics', '1.1.0')).status).toBe(201);
    for (let i = 0; i < 3; i++) await request(`${registry.url}/com.acme.metrics`);
    const metrics = (await request(`${registry.url}/-/metrics`)).text;
    expect(metrics).toContain('pkg_registry_publishes_total 2');
    expect(metrics).toContain('pkg_registry_document_cache_lookups_total{result="miss"} 1');
    expect(metrics).toContain('pkg_registry_document_cache_lookups_total{result="hit"} 2');
    expect(metrics).toMatch(/pkg_registry_document_cache_hit_ratio 0\.66/);
    expect(metrics).toContain('pkg_registry_document_cache_rejected_total 0');
  });
});
