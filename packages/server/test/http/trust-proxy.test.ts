import { afterEach, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import { loginOn, loginUser, registryHost, request, startRegistry, type TestRegistry } from '@pkg/testkit';

const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'registry.example.com' };

let registry: TestRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

async function whoamiRegistry(headers: Record<string, string>): Promise<string> {
  const token = await loginUser(registry!.url, 'proxied');
  const res = await request(`${registry!.url}/-/whoami`, { token, headers });
  expect(res.status).toBe(200);
  return res.body.registry;
}

describe('public URL behind a TLS-terminating proxy', () => {
  it('with trustProxy, X-Forwarded-Proto and X-Forwarded-Host make the public URL', async () => {
    registry = await startRegistry({ settings: { trustProxy: 'true' } });
    expect(await whoamiRegistry(forwarded)).toBe('https://registry.example.com/');
  });

  it('trustProxy naming the proxy address trusts it', async () => {
    registry = await startRegistry({ settings: { trustProxy: '127.0.0.1' } });
    expect(await whoamiRegistry(forwarded)).toBe('https://registry.example.com/');
  });

  it('a hop count trusts that many proxies in front of the server', async () => {
    registry = await startRegistry({ settings: { trustProxy: '1' } });
    expect(await whoamiRegistry(forwarded)).toBe('https://registry.example.com/');
  });

  it('without trustProxy the headers are ignored', async () => {
    registry = await startRegistry();
    expect(await whoamiRegistry(forwarded)).toBe(`${registry.url}/`);
  });

  it('a trustProxy list that does not include the caller ignores the headers', async () => {
    registry = await startRegistry({ settings: { trustProxy: '10.0.0.1,192.168.0.0/16' } });
    expect(await whoamiRegistry(forwarded)).toBe(`${registry.url}/`);
  });

  it('a configured publicUrl wins over the forwarded headers', async () => {
    registry = await startRegistry({ settings: { trustProxy: 'true', publicUrl: 'https://pkgs.example.org/' } });
    expect(await whoamiRegistry(forwarded)).toBe('https://pkgs.example.org/');
  });
});

describe('tenant host behind a proxy', () => {
  it('with trustProxy, X-Forwarded-Host names the tenant; without it, the Host does', async () => {
    for (const trustProxy of ['true', 'false']) {
      registry = await startRegistry({ settings: { trustProxy, registryDomain: 'registry.test' } });
      await new TenantAdmin(registry.storage).create('a', {});
      const token = await loginOn(registryHost(registry.url, 'a.registry.test'), 'tenant-user');
      const res = await request(`${registry.url}/-/whoami`, {
        token,
        headers: { 'x-forwarded-host': 'a.registry.test', 'x-forwarded-proto': 'https' },
      });
      if (trustProxy === 'true') {
        expect(res.status).toBe(200);
        expect(res.body.registry).toBe('https://a.registry.test/');
      } else {
        // The Host is 127.0.0.1:<port>, the global registry, where a's token means nothing.
        expect(res.status).toBe(401);
      }
      await registry.close();
      registry = undefined;
    }
  });
});
