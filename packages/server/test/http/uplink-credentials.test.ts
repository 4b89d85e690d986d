import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';

/**
 * An upstream that needs a token for reads (`readAccess: token`): the uplink sends the token of
 * its `tokenEnv` variable, and only to the upstream; without it the upstream's 401 is our 502.
 */
const NAME = 'com.private.kit';
const TOKEN_ENV = 'PKG_TEST_UPLINK_TOKEN';
let upstream: TestRegistry;
const started: TestRegistry[] = [];

const downstream = async (tokenEnv: string) => {
  const uplinks = [{ name: 'private', url: upstream.url, packages: ['com.private.*'], tokenEnv }];
  const registry = await startRegistry({ settings: { uplinks: JSON.stringify(uplinks) }, captureLogs: true });
  started.push(registry);
  return registry;
};

beforeAll(async () => {
  upstream = await startRegistry({ settings: { readAccess: 'token' } });
  const token = await loginUser(upstream.url, 'owner');
  expect((await publishVersion(upstream.url, token, NAME, '1.0.0')).status).toBe(201);
  process.env[TOKEN_ENV] = token;
});
afterAll(async () => {
  // close() fails when an issued token (the uplink's included) appears in a registry's log.
  for (const registry of started) await registry.close();
  await upstream?.close();
  delete process.env[TOKEN_ENV];
});

describe('uplink credentials', () => {
  it('are sent to the upstream from the variable tokenEnv names, for documents and tarballs', async () => {
    const registry = await downstream(TOKEN_ENV);
    const doc = await request(`${registry.url}/${NAME}`);
    expect(doc.status).toBe(200);
    const tarball = await fetch(`${registry.url}/${NAME}/-/${NAME}-1.0.0.tgz`);
    expect(tarball.status).toBe(200);
    // Our own readers need no token: this registry reads anonymously.
    expect(doc.body.versions['1.0.0'].dist.tarball.startsWith(registry.url)).toBe(true);
  });

  it('missing, make the upstream refuse: 502 naming the uplink, never a 401', async () => {
    const registry = await downstream('PKG_TEST_UPLINK_TOKEN_UNSET');
    const refused = await request(`${registry.url}/${NAME}`);
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('BAD_GATEWAY');
    expect(refused.body.details).toContain("'private'");
    expect(refused.headers.get('www-authenticate')).toBeNull();
    expect(registry.logLines.join('')).toContain('upstream request failed');
  });
});
