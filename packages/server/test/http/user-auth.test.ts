import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, request, startRegistry, type TestRegistry } from '@pkg/testkit';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry();
});
afterAll(async () => {
  await registry.close();
});

describe('login, whoami, logout', () => {
  it('creates an account on first login (spec id form) and answers the login response', async () => {
    const res = await request(`${registry.url}/-/user/org.registry.user:alice`, {
      method: 'PUT',
      body: { name: 'alice', password: 'pw-alice', email: 'alice@example.com' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ok: true, id: 'org.registry.user:alice' });
    expect(res.body.rev).toMatch(/^\d+-\S+$/);
    expect(res.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const who = await request(`${registry.url}/-/whoami`, { token: res.body.token });
    expect(who.status).toBe(200);
    expect(who.body).toEqual({ username: 'alice', email: 'alice@example.com', registry: `${registry.url}/` });
  });

  it('issues a new token for the right password and 401 for a wrong one', async () => {
    await loginUser(registry.url, 'bob', 'right-passphrase');
    const again = await loginUser(registry.url, 'bob', 'right-passphrase');
    expect(again).toBeTruthy();
    const wrong = await request(`${registry.url}/-/user/org.couchdb.user:bob`, {
      method: 'PUT',
      body: { name: 'bob', password: 'wrong', email: 'bob@example.com' },
    });
    expect(wrong.status).toBe(401);
    const reason = "Invalid credentials: wrong password for 'bob', or the account is disabled";
    expect(wrong.body).toEqual({ error: reason, code: 'UNAUTHORIZED', details: reason });
    expect(wrong.headers.get('www-authenticate')).toBe(`Token reason="${reason}"`);
  });

  it('whoami without or with a bad token is 401 with WWW-Authenticate', async () => {
    for (const [token, reason] of [
      [undefined, 'A valid token is required: log in first'],
      [
        'not-a-token',
        'This token is not valid here: it was revoked, or this registry never issued it; log in again or create a new token',
      ],
    ] as const) {
      const res = await request(`${registry.url}/-/whoami`, { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: reason, code: 'UNAUTHORIZED', details: reason });
      expect(res.headers.get('www-authenticate')).toBe(`Token reason="${reason}"`);
    }
  });

  it('logout invalidates exactly that token', async () => {
    const t1 = await loginUser(registry.url, 'carol');
    const t2 = await loginUser(registry.url, 'carol');
    const out = await request(`${registry.url}/-/user/token/${t1}`, { method: 'DELETE' });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ ok: true });
    expect((await request(`${registry.url}/-/whoami`, { token: t1 })).status).toBe(401);
    expect((await request(`${registry.url}/-/whoami`, { token: t2 })).status).toBe(200);
  });

  it('GET /-/user/org.couchdb.user:<name> with a token returns name and email, 404 for unknown', async () => {
    const token = await loginUser(registry.url, 'dave');
    const res = await request(`${registry.url}/-/user/org.couchdb.user:dave`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'dave', email: 'dave@example.com' });
    expect((await request(`${registry.url}/-/user/org.couchdb.user:nobody`, { token })).status).toBe(404);
  });

  it('GET /-/user/org.couchdb.user:<name> without a token: no e-mail, and known and unknown names answer alike', async () => {
    await loginUser(registry.url, 'frank');
    const known = await request(`${registry.url}/-/user/org.couchdb.user:frank`);
    const unknown = await request(`${registry.url}/-/user/org.couchdb.user:nobody-at-all`);
    expect(known.status).toBe(401);
    expect(known.text).not.toContain('example.com');
    expect({ status: unknown.status, body: unknown.body, auth: unknown.headers.get('www-authenticate') }).toEqual({
      status: known.status,
      body: known.body,
      auth: known.headers.get('www-authenticate'),
    });
  });

  it.each([
    ['malformed JSON', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } }, 400],
    ['wrong types', { body: { name: 'eve', password: 12345, email: 'e@x.io' } }, 400],
    ['missing password', { body: { name: 'eve', email: 'e@x.io' } }, 400],
    ['name mismatch', { body: { name: 'mallory', password: 'x', email: 'e@x.io' } }, 400],
    ['bad email on sign-up', { body: { name: 'eve', password: 'x', email: 'nope' } }, 422],
  ])('rejects %s without creating the user', async (_label, init, status) => {
    const res = await request(`${registry.url}/-/user/org.couchdb.user:eve`, { method: 'PUT', ...init });
    expect(res.status).toBe(status);
    expect(await registry.storage.registry.users.get('', 'eve')).toBeUndefined();
  });
});
