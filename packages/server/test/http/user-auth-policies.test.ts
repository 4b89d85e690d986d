import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loginUser, request, startRegistry, type TestRegistry } from '@pkg/testkit';

let registry: TestRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

function login(name: string, password: string, extra: Record<string, unknown> = {}) {
  return request(`${registry!.url}/-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    body: { name, password, ...extra },
  });
}

const closedSignup =
  'Invalid credentials: wrong user name or password (sign-up is closed on this registry: only existing accounts can log in, an administrator creates them)';
const invalidCredentials = { error: closedSignup, code: 'UNAUTHORIZED', details: closedSignup };

describe('sign-up closed', () => {
  it('refuses unknown users with the same 401 as a wrong password, and lets existing users log in', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'signup-closed-'));
    try {
      registry = await startRegistry({ dataDir });
      await loginUser(registry.url, 'existing', 'existing-password');
      await registry.close();
      registry = await startRegistry({ dataDir, settings: { signup: false } });

      const unknown = await login('newcomer', 'whatever', { email: 'new@example.com' });
      expect(unknown.status).toBe(401);
      expect(unknown.body).toEqual(invalidCredentials);
      expect(unknown.headers.get('www-authenticate')).toBe(`Token reason="${closedSignup}"`);
      expect(await registry.storage.registry.users.get('', 'newcomer')).toBeUndefined();

      const wrong = await login('existing', 'not-the-password');
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);

      const right = await login('existing', 'existing-password');
      expect(right.status).toBe(201);
      expect((await request(`${registry.url}/-/whoami`, { token: right.body.token })).body.username).toBe('existing');
    } finally {
      await registry?.close();
      registry = undefined;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a login that may not sign up (x-pkg-signup: false)', () => {
  it('says whether the login created the account, and never creates one when the client says so', async () => {
    registry = await startRegistry();
    const url = (name: string) => `${registry!.url}/-/user/org.couchdb.user:${name}`;
    const put = (name: string, headers: Record<string, string> = {}) =>
      request(url(name), { method: 'PUT', body: { name, password: 'secret-password' }, headers });

    const refused = await put('newcomer', { 'x-pkg-signup': 'false' });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(invalidCredentials);
    expect(await registry.storage.registry.users.get('', 'newcomer')).toBeUndefined();

    const created = await put('newcomer');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ok: true, created: true });
    const again = await put('newcomer', { 'x-pkg-signup': 'false' });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ ok: true, created: false });
  });
});

describe('disabled users', () => {
  it('cannot log in, their tokens stop working, and user lookup does not find them', async () => {
    registry = await startRegistry();
    const token = await loginUser(registry.url, 'gone', 'gone-password');
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(200);

    await registry.storage.registry.users.update('', 'gone', { disabled: true });

    const res = await login('gone', 'gone-password');
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("Invalid credentials: wrong password for 'gone', or the account is disabled");
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(401);
    const other = await loginUser(registry.url, 'still-here', 'still-here-password');
    expect((await request(`${registry.url}/-/user/org.couchdb.user:gone`, { token: other })).status).toBe(404);
  });
});

describe('token lifetime (tokenTtl)', () => {
  it('a token works until its lifetime has passed, then is refused; a new login gives a fresh one', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    registry = await startRegistry({ settings: { tokenTtl: 3600 }, now: () => now });
    const token = await loginUser(registry.url, 'ttl', 'ttl-password');

    now = new Date('2030-01-01T00:59:59Z');
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(200);
    now = new Date('2030-01-01T01:00:00Z');
    const expired = await request(`${registry.url}/-/whoami`, { token });
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('UNAUTHORIZED');

    const fresh = await loginUser(registry.url, 'ttl', 'ttl-password');
    expect((await request(`${registry.url}/-/whoami`, { token: fresh })).status).toBe(200);
  });

  it('tokens never expire when tokenTtl is 0', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    registry = await startRegistry({ now: () => now });
    const token = await loginUser(registry.url, 'forever', 'forever-password');
    now = new Date('2040-01-01T00:00:00Z');
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(200);
  });
});

describe('login body', () => {
  it('creates an account without an e-mail address, as `npm login` sends none', async () => {
    registry = await startRegistry();
    const res = await login('no-mail', 'no-mail-password', {
      _id: 'org.couchdb.user:no-mail',
      type: 'user',
      roles: [],
      date: new Date().toISOString(),
    });
    expect(res.status).toBe(201);
    const who = await request(`${registry.url}/-/whoami`, { token: res.body.token });
    expect(who.body).toMatchObject({ username: 'no-mail', email: '' });
  });

  it.each([
    ['an unknown field', { name: 'strict', password: 'p', admin: true }],
    ['roles that are not strings', { name: 'strict', password: 'p', roles: [{}] }],
    ['an over-long password', { name: 'strict', password: 'x'.repeat(1025) }],
    ['an array body', [{ name: 'strict', password: 'p' }]],
  ])('answers 400 to %s and creates nothing', async (_label, body) => {
    registry = await startRegistry();
    const res = await request(`${registry.url}/-/user/org.couchdb.user:strict`, { method: 'PUT', body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(await registry.storage.registry.users.get('', 'strict')).toBeUndefined();
  });

  it.each([
    ['a user name with a slash-like character', 'bad name'],
    ['a user name starting with a dot', '.hidden'],
  ])('answers 422 to %s', async (_label, name) => {
    registry = await startRegistry();
    const res = await request(`${registry.url}/-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
      method: 'PUT',
      body: { name, password: 'p' },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(await registry.storage.registry.users.list('')).toEqual([]);
  });

  it('answers 400 to a user id without the org.couchdb.user: prefix', async () => {
    registry = await startRegistry();
    const res = await request(`${registry.url}/-/user/someone`, { method: 'PUT', body: { name: 'someone', password: 'p' } });
    expect(res.status).toBe(400);
  });
});

describe('logout', () => {
  it('is idempotent: an unknown or already revoked token answers {ok: true}', async () => {
    registry = await startRegistry();
    const token = await loginUser(registry.url, 'twice');
    for (let i = 0; i < 2; i++) {
      const res = await request(`${registry.url}/-/user/token/${token}`, { method: 'DELETE' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
    }
    expect((await request(`${registry.url}/-/user/token/never-issued`, { method: 'DELETE' })).body).toEqual({ ok: true });
  });

  it('answers 400 to an absurdly long token without echoing it', async () => {
    registry = await startRegistry();
    const long = 'a'.repeat(600);
    const res = await request(`${registry.url}/-/user/token/${long}`, { method: 'DELETE' });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain(long);
  });
});

describe('readAccess token on the global registry', () => {
  it('needs a token for reads, not for login, logout or ping', async () => {
    registry = await startRegistry({ settings: { readAccess: 'token' } });
    const token = await loginUser(registry.url, 'reader');
    for (const path of ['/-/whoami', '/-/user/org.couchdb.user:reader', '/com.example.anything', '/-/v1/search?text=x']) {
      expect((await request(`${registry.url}${path}`)).status, path).toBe(401);
    }
    expect((await request(`${registry.url}/-/user/org.couchdb.user:reader`, { token })).status).toBe(200);
    expect((await request(`${registry.url}/-/v1/search?text=x`, { token })).status).toBe(200);
    expect((await request(`${registry.url}/-/ping`)).status).toBe(200);
    expect((await request(`${registry.url}/-/user/token/${token}`, { method: 'DELETE' })).status).toBe(200);
  });
});
