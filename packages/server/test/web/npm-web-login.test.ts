import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { NPM_LOGIN_POLL_SECONDS, NPM_LOGIN_SECONDS } from '../../src/services/npm-web-login.js';
import { WebClient } from './web-client.js';

let registry: TestRegistry;
let clock: number;

beforeAll(async () => {
  clock = Date.parse('2025-01-01T12:00:00.000Z');
  registry = await startRegistry({ now: () => new Date(clock), captureLogs: true });
  await loginUser(registry.url, 'alice', 'pw-alice');
});
afterAll(async () => {
  await registry.close();
});

/** What `npm login` does first: POST /-/v1/login with `{}` (or `{create: true}` for adduser). */
async function startLogin(body: unknown = {}) {
  const res = await request<{ loginUrl: string; doneUrl: string }>(`${registry.url}/-/v1/login`, {
    method: 'POST',
    body,
    headers: { 'user-agent': 'npm/11.0.0 node/v20.0.0 linux x64 workspaces/false' },
  });
  expect(res.status).toBe(200);
  return res.body;
}

async function poll(doneUrl: string) {
  return request<{ token?: string }>(doneUrl);
}

/** The browser step: open loginUrl, sign in with the form. */
async function signInOnPage(loginUrl: string, name: string, password: string, client = new WebClient(registry.url)) {
  const page = await client.get(loginUrl);
  expect(page.status).toBe(200);
  return client.post(loginUrl, { csrf: client.csrf(), name, password });
}

describe('npm web login', () => {
  it('answers POST /-/v1/login with a login URL and a done URL on this registry', async () => {
    const res = await request(`${registry.url}/-/v1/login`, { method: 'POST', body: {} });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['doneUrl', 'loginUrl']);
    expect(res.body.loginUrl).toMatch(new RegExp(`^${registry.url}/-/web/login/[A-Za-z0-9_-]{43}$`));
    expect(res.body.doneUrl).toMatch(new RegExp(`^${registry.url}/-/v1/login/done/[A-Za-z0-9_-]{43}$`));
    // the two secrets are unrelated: the login URL does not give the token away
    expect(res.body.loginUrl.split('/').at(-1)).not.toBe(res.body.doneUrl.split('/').at(-1));
  });

  it.each([
    ['an array body', [{ create: true }]],
    ['a create that is not a boolean', { create: 'yes' }],
  ])('answers 400 to %s and starts no login', async (_label, body) => {
    const res = await request(`${registry.url}/-/v1/login`, { method: 'POST', body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });

  it('runs pending → signed in → token collected once', async () => {
    const { loginUrl, doneUrl } = await startLogin();
    const pending = await poll(doneUrl);
    expect(pending.status).toBe(202);
    expect(pending.headers.get('retry-after')).toBe(String(NPM_LOGIN_POLL_SECONDS));
    expect(pending.body).toEqual({});

    const client = new WebClient(registry.url);
    const page = await client.get(loginUrl);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.html).toContain('npm/11.0.0 node/v20.0.0 linux x64 workspaces/false');
    expect(page.html).toContain('Continue only if you just ran <code>npm login</code> yourself.');
    const signed = await client.post(loginUrl, { csrf: client.csrf(), name: 'alice', password: 'pw-alice' });
    expect(signed.status).toBe(303);
    expect(signed.headers.get('location')).toBe('/-/web/login-complete');
    const complete = await client.get('/-/web/login-complete');
    expect(complete.html).toContain('npm is now logged in as <strong>alice</strong>');

    const done = await poll(doneUrl);
    expect(done.status).toBe(200);
    expect(Object.keys(done.body)).toEqual(['token']);
    const who = await request(`${registry.url}/-/whoami`, { token: done.body.token });
    expect(who.body.username).toBe('alice');

    // single use: neither URL works again
    expect((await poll(doneUrl)).status).toBe(404);
    expect((await client.get(loginUrl)).status).toBe(404);
    const replay = await client.post(loginUrl, { csrf: client.csrf(), name: 'alice', password: 'pw-alice' });
    expect(replay.status).toBe(404);
    expect(replay.html).toContain('expired or was already used');
  });

  it('hands the token to exactly one of two concurrent polls', async () => {
    const { loginUrl, doneUrl } = await startLogin();
    await signInOnPage(loginUrl, 'alice', 'pw-alice');
    const results = await Promise.all([poll(doneUrl), poll(doneUrl), poll(doneUrl)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404]);
  });

  it('stays pending after a wrong password, a missing CSRF token or a cross-site form', async () => {
    const { loginUrl, doneUrl } = await startLogin();
    const client = new WebClient(registry.url);
    await client.get(loginUrl);
    const wrong = await client.post(loginUrl, { csrf: client.csrf(), name: 'alice', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('Wrong user name or password.');
    expect(wrong.html).toContain('value="alice"');
    const noCsrf = await client.post(loginUrl, { name: 'alice', password: 'pw-alice' });
    expect(noCsrf.status).toBe(403);
    const badCsrf = await client.post(loginUrl, { csrf: 'x'.repeat(43), name: 'alice', password: 'pw-alice' });
    expect(badCsrf.status).toBe(403);
    const crossSite = await client.post(
      loginUrl,
      { csrf: client.csrf(), name: 'alice', password: 'pw-alice' },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect((await poll(doneUrl)).status).toBe(202);
    // the page still works after all that
    const ok = await client.post(loginUrl, { csrf: client.csrf(), name: 'alice', password: 'pw-alice' });
    expect(ok.status).toBe(303);
    expect((await poll(doneUrl)).status).toBe(200);
  });

  it('expires unused sessions after a few minutes', async () => {
    const { loginUrl, doneUrl } = await startLogin();
    const client = new WebClient(registry.url);
    await client.get(loginUrl);
    clock += NPM_LOGIN_SECONDS * 1000;
    expect((await poll(doneUrl)).status).toBe(404);
    const late = await client.post(loginUrl, { csrf: client.csrf(), name: 'alice', password: 'pw-alice' });
    expect(late.status).toBe(404);
    expect((await client.get(loginUrl)).status).toBe(404);
  });

  it('expires signed-in sessions npm never collected', async () => {
    const { loginUrl, doneUrl } = await startLogin();
    await signInOnPage(loginUrl, 'alice', 'pw-alice');
    clock += NPM_LOGIN_SECONDS * 1000;
    expect((await poll(doneUrl)).status).toBe(404);
  });

  it('lets a browser that is already signed in continue with one click', async () => {
    const client = new WebClient(registry.url);
    const first = await startLogin();
    await signInOnPage(first.loginUrl, 'alice', 'pw-alice', client);
    const second = await startLogin();
    const page = await client.get(second.loginUrl);
    expect(page.html).toContain('Continue as alice');
    const cont = await client.post(second.loginUrl, { csrf: client.csrf(), continue: '1' });
    expect(cont.status).toBe(303);
    const done = await poll(second.doneUrl);
    expect(done.status).toBe(200);
    expect((await request(`${registry.url}/-/whoami`, { token: done.body.token })).body.username).toBe('alice');
  });

  it('ignores "continue" from a browser that is not signed in', async () => {
    const { loginUrl, doneUrl } = await startLogin();
    const client = new WebClient(registry.url);
    await client.get(loginUrl);
    const res = await client.post(loginUrl, { csrf: client.csrf(), continue: '1' });
    expect(res.status).toBe(400);
    expect((await poll(doneUrl)).status).toBe(202);
  });

  it('creates an account for `npm adduser` ({create: true}) when sign-up is open', async () => {
    const { loginUrl, doneUrl } = await startLogin({ create: true });
    const client = new WebClient(registry.url);
    const page = await client.get(loginUrl);
    expect(page.html).toContain('Create an account for npm');
    expect(page.html).toContain('name="email"');
    const res = await client.post(loginUrl, {
      csrf: client.csrf(),
      name: 'newbie',
      password: 'pw-new',
      email: 'newbie@example.com',
    });
    expect(res.status).toBe(303);
    const done = await poll(doneUrl);
    expect((await request(`${registry.url}/-/whoami`, { token: done.body.token })).body).toMatchObject({
      username: 'newbie',
      email: 'newbie@example.com',
    });
  });

  it.each([
    ['a JSON array', { rawBody: '[]', headers: { 'content-type': 'application/json' } }],
    ['create of the wrong type', { body: { create: 'yes' } }],
    ['malformed JSON', { rawBody: '{"create":', headers: { 'content-type': 'application/json' } }],
  ])('rejects a start request with %s (400) and creates no session', async (_label, init) => {
    const res = await request(`${registry.url}/-/v1/login`, { method: 'POST', ...init });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });

  it('keeps both secrets out of the log', async () => {
    const { loginUrl, doneUrl } = await startLogin();
    await poll(doneUrl);
    await signInOnPage(loginUrl, 'alice', 'pw-alice');
    await poll(doneUrl);
    const log = registry.logLines.join('');
    expect(log).toContain('/-/v1/login/done/[redacted]');
    expect(log).toContain('/-/web/login/[redacted]');
    for (const url of [loginUrl, doneUrl]) expect(log).not.toContain(url.split('/').at(-1));
  });

  it('answers unknown, malformed and path-trick done URLs with a JSON 404', async () => {
    for (const secret of ['x'.repeat(43), 'short', '..%2F..%2Fetc', 'a'.repeat(400)]) {
      const res = await request(`${registry.url}/-/v1/login/done/${secret}`);
      expect(res.status, secret).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      expect(res.text).not.toContain('stack');
    }
  });

  it('answers unknown login pages with an HTML 404', async () => {
    const page = await new WebClient(registry.url).get(`/-/web/login/${'y'.repeat(43)}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain('expired or was already used');
  });

  it('works across server processes sharing one store: started on one, signed in on another, collected on a third', async () => {
    const second = await startRegistry({ dataDir: registry.dataDir, now: () => new Date(clock) });
    const third = await startRegistry({ dataDir: registry.dataDir, now: () => new Date(clock) });
    try {
      const { loginUrl, doneUrl } = await startLogin();
      const path = (url: string) => new URL(url).pathname;
      const client = new WebClient(second.url);
      await client.get(path(loginUrl));
      const signed = await client.post(path(loginUrl), { csrf: client.csrf(), name: 'alice', password: 'pw-alice' });
      expect(signed.status).toBe(303);
      const done = await poll(`${third.url}${path(doneUrl)}`);
      expect(done.status).toBe(200);
      expect((await request(`${registry.url}/-/whoami`, { token: done.body.token })).body.username).toBe('alice');
      expect((await poll(doneUrl)).status).toBe(404);
    } finally {
      await third.close();
      await second.close();
    }
  });

  it('does not accept a browser-session secret or a login-page secret at the done URL', async () => {
    const { loginUrl } = await startLogin();
    const secret = loginUrl.split('/').at(-1)!;
    expect((await poll(`${registry.url}/-/v1/login/done/${secret}`)).status).toBe(404);
    const client = new WebClient(registry.url);
    await signInOnPage(loginUrl, 'alice', 'pw-alice', client);
    const session = client.cookies.get('pkg_session')!;
    expect(session).toBeTruthy();
    expect((await poll(`${registry.url}/-/v1/login/done/${session}`)).status).toBe(404);
  });
});

describe('npm web login polls', () => {
  it('count against the web pages budget, not the anonymous API limit: a long sign-in is never refused', async () => {
    const limited = await startRegistry({ settings: { rateLimitAnonymous: 5 } });
    try {
      const start = await request<{ doneUrl: string }>(`${limited.url}/-/v1/login`, { method: 'POST', body: {} });
      expect(start.status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await request(start.body.doneUrl)).status);
      expect(statuses).toEqual(Array(12).fill(202));
      // The API limit itself still holds for the address.
      const api: number[] = [];
      for (let i = 0; i < 6; i++) api.push((await request(`${limited.url}/com.example.none`)).status);
      expect(api).toContain(429);
    } finally {
      await limited.close();
    }
  });
});
