import { afterEach, describe, expect, it } from 'vitest';
import { loginUser, publishBody, publishFixtures, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { hashPassword } from '../../src/services/passwords.js';

// `Authorization: Basic base64(name:password)`: what npm and the Unity Package Manager send for
// an `_auth` setting (.npmrc, ~/.upmconfig.toml).

let registry: TestRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

function basic(name: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}` };
}

const reason = 'Invalid credentials: wrong user name or password';
const invalidCredentials = { error: reason, code: 'UNAUTHORIZED', details: reason };

describe('Basic credentials', () => {
  it('are a caller on a registry that needs a token for reads: whoami, documents, tarballs, search', async () => {
    registry = await startRegistry({ settings: { readAccess: 'token' } });
    const token = await loginUser(registry.url, 'alice', 'pass:with:colons');
    await publishFixtures(registry.url, token, { 'com.acme.tool': [{ version: '1.0.0' }] });
    const auth = basic('alice', 'pass:with:colons');

    const whoami = await request(`${registry.url}/-/whoami`, { headers: auth });
    expect(whoami.status).toBe(200);
    expect(whoami.body.username).toBe('alice');
    // Again: answered from the cache of verified credentials, the same way.
    expect((await request(`${registry.url}/-/whoami`, { headers: auth })).body.username).toBe('alice');

    const doc = await request(`${registry.url}/com.acme.tool`, { headers: auth });
    expect(doc.status).toBe(200);
    expect(doc.body.versions['1.0.0']).toBeDefined();
    const tarball = await fetch(doc.body.versions['1.0.0'].dist.tarball, { headers: auth });
    expect(tarball.status).toBe(200);
    // HEAD: the GET's handler, its body dropped.
    expect((await fetch(`${registry.url}/com.acme.tool`, { method: 'HEAD', headers: auth })).status).toBe(200);
    expect((await request(`${registry.url}/-/v1/search?text=acme`, { headers: auth })).body.total).toBe(1);

    expect((await request(`${registry.url}/com.acme.tool`)).status).toBe(401);
  });

  it('with a wrong password, an unknown user or a disabled user: 401 Invalid credentials, counted per IP', async () => {
    registry = await startRegistry({ settings: { rateLimitAnonymous: 100 } });
    await loginUser(registry.url, 'bob', 'bob-password');
    await loginUser(registry.url, 'gone', 'gone-password');
    await registry.storage.registry.users.update('', 'gone', { disabled: true });

    for (const [name, password] of [
      ['bob', 'not-bob-password'],
      ['nobody', 'whatever'],
      ['gone', 'gone-password'],
      ['bob', ''],
    ] as const) {
      // Even on a public registry and a public read: the caller asked to be someone it is not.
      const res = await request(`${registry.url}/-/v1/search?text=x`, { headers: basic(name, password) });
      expect(res.status, `${name}:${password}`).toBe(401);
      expect(res.body).toEqual(invalidCredentials);
      expect(res.headers.get('www-authenticate')).toBe(`Token reason="${reason}"`);
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    }
    // Sign-up is open, but credentials on a read never create an account.
    expect(await registry.storage.registry.users.get('', 'nobody')).toBeUndefined();
  });

  it('share the login throttle: failed Basic credentials and failed logins count together', async () => {
    registry = await startRegistry({ settings: { loginFailureLimit: 3 } });
    await loginUser(registry.url, 'carol', 'carol-password');
    for (let i = 0; i < 2; i++) {
      expect((await request(`${registry.url}/-/whoami`, { headers: basic('carol', `guess-${i}`) })).status).toBe(401);
    }
    const login = await request(`${registry.url}/-/user/org.couchdb.user:carol`, {
      method: 'PUT',
      body: { name: 'carol', password: 'guess-3' },
    });
    expect(login.status).toBe(401);

    const blocked = await request(`${registry.url}/-/whoami`, { headers: basic('carol', 'carol-password') });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('are verified again after the password changes', async () => {
    registry = await startRegistry();
    await loginUser(registry.url, 'dave', 'old-password');
    expect((await request(`${registry.url}/-/whoami`, { headers: basic('dave', 'old-password') })).status).toBe(200);
    await registry.storage.registry.users.update('', 'dave', { passwordHash: await hashPassword('new-password') });
    expect((await request(`${registry.url}/-/whoami`, { headers: basic('dave', 'old-password') })).status).toBe(401);
    expect((await request(`${registry.url}/-/whoami`, { headers: basic('dave', 'new-password') })).status).toBe(200);
  });

  it('publish with Basic credentials, as npm does with `_auth`', async () => {
    registry = await startRegistry();
    await loginUser(registry.url, 'erin', 'erin-password');
    const { body } = publishBody('com.erin.pkg', '1.0.0');
    const res = await request(`${registry.url}/com.erin.pkg`, { method: 'PUT', body, headers: basic('erin', 'erin-password') });
    expect(res.status).toBe(201);
    expect((await request(`${registry.url}/com.erin.pkg`)).body.maintainers).toEqual([
      { name: 'erin', email: expect.any(String) },
    ]);
  });

  it('are ignored on the login route, where npm sends the name and password it signs up with', async () => {
    registry = await startRegistry();
    const res = await request(`${registry.url}/-/user/org.couchdb.user:frank`, {
      method: 'PUT',
      body: { name: 'frank', password: 'frank-password' },
      headers: basic('frank', 'frank-password'),
    });
    expect(res.status).toBe(201);
    expect((await request(`${registry.url}/-/whoami`, { token: res.body.token })).body.username).toBe('frank');
  });

  it('other schemes and malformed Basic values stay anonymous', async () => {
    registry = await startRegistry();
    for (const authorization of ['Digest abc', 'Basic !!!', 'Basic']) {
      const res = await request(`${registry.url}/-/v1/search?text=x`, { headers: { authorization } });
      expect(res.status, authorization).toBe(200);
      expect((await request(`${registry.url}/-/whoami`, { headers: { authorization } })).status).toBe(401);
    }
  });
});
