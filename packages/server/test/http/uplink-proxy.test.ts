import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishVersion,
  request,
  startConnectProxy,
  startRegistry,
  type TestProxy,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * Upstream requests honour HTTP_PROXY and NO_PROXY: a real CONNECT proxy on 127.0.0.1 between
 * the downstream and its upstream records every tunnel. Each registry reads the variables when
 * it first asks an upstream, so each case starts its own downstream.
 */
const NAME = 'com.proxied.kit';
const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
let upstream: TestRegistry;
let proxy: TestProxy;
const started: TestRegistry[] = [];
const saved = Object.fromEntries(PROXY_VARIABLES.map((name) => [name, process.env[name]]));

const downstream = async () => {
  const uplinks = [{ name: 'proxied', url: upstream.url, packages: ['com.proxied.*'], timeout: 5 }];
  const registry = await startRegistry({ settings: { uplinks: JSON.stringify(uplinks) } });
  started.push(registry);
  return registry;
};

beforeAll(async () => {
  for (const name of PROXY_VARIABLES) delete process.env[name];
  upstream = await startRegistry();
  const token = await loginUser(upstream.url, 'owner');
  expect((await publishVersion(upstream.url, token, NAME, '1.0.0')).status).toBe(201);
  proxy = await startConnectProxy();
});
afterAll(async () => {
  for (const name of PROXY_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  for (const registry of started) await registry.close();
  await proxy?.close();
  await upstream?.close();
});

describe('upstream requests', () => {
  it('go through the proxy of HTTP_PROXY (documents and tarballs)', async () => {
    process.env.HTTP_PROXY = proxy.url;
    const registry = await downstream();
    const doc = await request(`${registry.url}/${NAME}`);
    expect(doc.status).toBe(200);
    const tarball = await request(`${registry.url}/${NAME}/-/${NAME}-1.0.0.tgz`);
    expect(tarball.status).toBe(200);
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(new Set(proxy.tunnels)).toEqual(new Set([`127.0.0.1:${upstream.port}`]));
  });

  it('skip the proxy for hosts of NO_PROXY', async () => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = '127.0.0.1';
    const registry = await downstream();
    const before = proxy.tunnels.length;
    expect((await request(`${registry.url}/${NAME}`)).status).toBe(200);
    expect(proxy.tunnels.length).toBe(before);
    delete process.env.NO_PROXY;
  });

  it('through a proxy that cannot be reached: 503 UPSTREAM_UNAVAILABLE, never a 404 or 500', async () => {
    const closed = await startConnectProxy();
    await closed.close();
    process.env.HTTP_PROXY = closed.url;
    const registry = await downstream();
    const answer = await request(`${registry.url}/${NAME}`);
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(answer.headers.get('retry-after')).not.toBeNull();
  });
});
