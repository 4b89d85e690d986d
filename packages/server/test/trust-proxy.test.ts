import { afterEach, describe, expect, it } from 'vitest';
import { loginUser, request, startRegistry, type TestRegistry } from '@pkg/testkit';

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
