import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { BROWSER_SESSION_SECONDS } from '../../src/services/browser-sessions.js';
import { WebClient, squash } from './web-client.js';

let registry: TestRegistry;
let clock: number;
let tokens: string[];

beforeAll(async () => {
  clock = Date.parse('2025-01-01T12:00:00.000Z');
  registry = await startRegistry({ now: () => new Date(clock) });
  tokens = [await loginUser(registry.url, 'alice', 'pw-alice'), await loginUser(registry.url, 'alice', 'pw-alice')];
  await loginUser(registry.url, 'bob', 'pw-bob');
});
afterAll(async () => {
  await registry.close();
});

async function signedIn(name: string, password: string): Promise<WebClient> {
  const client = new WebClient(registry.url);
  await client.get('/-/web/signin');
  const res = await client.post('/-/web/signin', { csrf: client.csrf(), name, password });
  expect(res.status).toBe(303);
  return client;
}

describe('signing in to the web interface', () => {
  it('sends signed-out visitors of the account page to the sign-in form', async () => {
    const page = await new WebClient(registry.url).get('/-/web/account');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/-/web/signin?next=%2F-%2Fweb%2Faccount');
  });

  it('has a labelled, CSRF-protected sign-in form', async () => {
    const client = new WebClient(registry.url);
    const page = await client.get('/-/web/signin');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = squash(page.html);
    expect(html).toContain('<label for="name">User name</label>');
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toMatch(new RegExp(`<input type="hidden" name="csrf" value="${client.csrf()}" ?/?>`));
    const setCookie = page.headers.getSetCookie().find((c) => c.startsWith('pkg_csrf='))!;
    expect(setCookie).toMatch(/; Path=\/; HttpOnly; SameSite=Strict$/);
  });

  it('rejects a wrong password with the form again, and sets no session', async () => {
    const client = new WebClient(registry.url);
    await client.get('/-/web/signin');
    const res = await client.post('/-/web/signin', { csrf: client.csrf(), name: 'alice', password: 'wrong' });
    expect(res.status).toBe(401);
    expect(res.html).toContain('Wrong user name or password.');
    expect(client.cookies.has('pkg_session')).toBe(false);
  });

  it('creates an account only when an e-mail is given, never from a mistyped name', async () => {
    const client = new WebClient(registry.url);
    await client.get('/-/web/signin');
    const typo = await client.post('/-/web/signin', { csrf: client.csrf(), name: 'alcie', password: 'pw-alice' });
    expect(typo.status).toBe(401);
    expect(await registry.storage.registry.users.get('', 'alcie')).toBeUndefined();
    const signup = await client.post('/-/web/signin', {
      csrf: client.csrf(),
      name: 'dora',
      password: 'pw-dora',
      email: 'dora@example.com',
    });
    expect(signup.status).toBe(303);
    expect(await registry.storage.registry.users.get('', 'dora')).toMatchObject({ email: 'dora@example.com' });
  });

  it('signs in with an HttpOnly session cookie and goes back to a local page only', async () => {
    const client = new WebClient(registry.url);
    await client.get('/-/web/signin');
    const res = await client.post('/-/web/signin', {
      csrf: client.csrf(),
      name: 'alice',
      password: 'pw-alice',
      next: '//evil.example/x',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/-/web/account');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('pkg_session='))!;
    expect(cookie).toMatch(new RegExp(`; Path=/; HttpOnly; SameSite=Lax; Max-Age=${BROWSER_SESSION_SECONDS}$`));
    const home = await client.get('/');
    expect(squash(home.html)).toContain('<a href="/-/web/account">alice</a>');
  });

  it.each([
    ['without a CSRF token', {}, {}],
    ['from another site', { csrf: 'SAME' }, { origin: 'http://evil.example' }],
  ])('refuses a sign-in %s (403)', async (_label, extra, headers) => {
    const client = new WebClient(registry.url);
    await client.get('/-/web/signin');
    const form: Record<string, string> = { name: 'alice', password: 'pw-alice', ...extra };
    if (form.csrf === 'SAME') form.csrf = client.csrf();
    const res = await client.post('/-/web/signin', form, headers);
    expect(res.status).toBe(403);
    expect(client.cookies.has('pkg_session')).toBe(false);
  });

  it.each([
    ['a JSON body', 'application/json', '{"name":"alice"}', 403],
    ['an oversized form', 'application/x-www-form-urlencoded', `name=${'a'.repeat(20_000)}`, 413],
    ['a text body', 'text/plain', 'hello', 415],
    ['an unknown content type', 'application/xml', '<x/>', 415],
  ])('answers %s with a clear 4xx', async (_label, type, body, status) => {
    const res = await fetch(`${registry.url}/-/web/signin`, { method: 'POST', headers: { 'content-type': type }, body });
    expect(res.status).toBe(status);
    expect(await res.text()).not.toMatch(/at .*\.ts:\d+/);
  });

  it('gives every sign-in a new session secret and ends the one it replaces', async () => {
    const client = await signedIn('alice', 'pw-alice');
    const before = client.cookies.get('pkg_session')!;
    const again = await client.post('/-/web/signin', { csrf: client.csrf(), name: 'bob', password: 'pw-bob' });
    expect(again.status).toBe(303);
    expect(client.cookies.get('pkg_session')).not.toBe(before);
    expect(squash((await client.get('/')).html)).toContain('<a href="/-/web/account">bob</a>');
    const old = new WebClient(registry.url);
    old.cookies.set('pkg_session', before);
    expect((await old.get('/-/web/account')).status).toBe(303);
  });

  it('ends the session on sign-out, server side too', async () => {
    const client = await signedIn('alice', 'pw-alice');
    const stolen = client.cookies.get('pkg_session')!;
    const out = await client.post('/-/web/signout', { csrf: client.csrf() });
    expect(out.status).toBe(303);
    expect(client.cookies.has('pkg_session')).toBe(false);
    const replay = new WebClient(registry.url);
    replay.cookies.set('pkg_session', stolen);
    expect((await replay.get('/-/web/account')).status).toBe(303);
  });

  it('expires sessions after their lifetime', async () => {
    const client = await signedIn('alice', 'pw-alice');
    expect((await client.get('/-/web/account')).status).toBe(200);
    clock += BROWSER_SESSION_SECONDS * 1000;
    expect((await client.get('/-/web/account')).status).toBe(303);
  });
});

describe('throttling', () => {
  it('counts failed web sign-ins like failed npm logins: past the limit, 429 from that address even with the right password', async () => {
    const strict = await startRegistry({ settings: { loginFailureLimit: 3 } });
    try {
      await loginUser(strict.url, 'erin', 'pw-erin');
      const client = new WebClient(strict.url);
      await client.get('/-/web/signin');
      for (let i = 0; i < 3; i++) {
        expect((await client.post('/-/web/signin', { csrf: client.csrf(), name: 'erin', password: 'guess' })).status).toBe(401);
      }
      const blocked = await client.post('/-/web/signin', { csrf: client.csrf(), name: 'erin', password: 'pw-erin' });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(blocked.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(client.cookies.has('pkg_session')).toBe(false);
      // the API login of that account is throttled too
      const api = await request(`${strict.url}/-/user/org.couchdb.user:erin`, {
        method: 'PUT',
        body: { name: 'erin', password: 'pw-erin' },
      });
      expect(api.status).toBe(429);
    } finally {
      await strict.close();
    }
  });
});

describe('the account page', () => {
  it("lists the user's tokens by prefix and date, never a whole token, and not other users' tokens", async () => {
    const client = await signedIn('alice', 'pw-alice');
    const page = await client.get('/-/web/account');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    for (const token of tokens) {
      expect(page.html).toContain(`${token.slice(0, 6)}…`);
      expect(page.html).not.toContain(token);
    }
    expect(page.html.match(/name="id"/g)).toHaveLength(2);
    expect(page.html).toContain('alice@example.com');
  });

  it("shows the user's teams with their namespaces and other members, and no other team", async () => {
    const client = await signedIn('bob', 'pw-bob');
    expect(squash((await client.get('/-/web/account')).html)).toContain('You are in no team.');
    await registry.storage.teams.create('', 'studio', '2025-01-01T00:00:00.000Z', ['alice', 'bob']);
    await registry.storage.teams.claim('', 'studio', 'com.studio.*');
    await registry.storage.teams.claim('', 'studio', 'com.studio-labs.*');
    await registry.storage.teams.create('', 'secret-team', '2025-01-01T00:00:00.000Z', ['alice']);
    const html = squash((await client.get('/-/web/account')).html);
    expect(html).toContain(
      '<tr><td>studio</td><td><code>com.studio-labs.*</code>,<code>com.studio.*</code></td><td>alice</td></tr>',
    );
    expect(html).not.toContain('secret-team');
  });

  it('revokes one token: it stops working, the others keep working', async () => {
    const victim = await loginUser(registry.url, 'alice', 'pw-alice');
    const client = await signedIn('alice', 'pw-alice');
    const page = squash((await client.get('/-/web/account')).html);
    const row = new RegExp(`<code>${victim.slice(0, 6)}…</code>[\\s\\S]*?name="id" value="([0-9a-f]{16})"`).exec(page);
    expect(row).not.toBeNull();
    const res = await client.post('/-/web/account/tokens/revoke', { csrf: client.csrf(), id: row![1]! });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/-/web/account?revoked=1');
    expect((await client.get('/-/web/account?revoked=1')).html).toContain('The token was revoked.');
    expect((await request(`${registry.url}/-/whoami`, { token: victim })).status).toBe(401);
    expect((await request(`${registry.url}/-/whoami`, { token: tokens[0] })).status).toBe(200);
    // revoking it again: it is gone
    expect((await client.post('/-/web/account/tokens/revoke', { csrf: client.csrf(), id: row![1]! })).status).toBe(404);
  });

  it("cannot revoke another user's token, nor revoke without the CSRF token", async () => {
    const bobToken = await loginUser(registry.url, 'bob', 'pw-bob');
    const bob = await signedIn('bob', 'pw-bob');
    const bobId = /name="id" value="([0-9a-f]{16})"/.exec((await bob.get('/-/web/account')).html)![1]!;
    const alice = await signedIn('alice', 'pw-alice');
    expect((await alice.post('/-/web/account/tokens/revoke', { csrf: alice.csrf(), id: bobId })).status).toBe(404);
    expect((await bob.post('/-/web/account/tokens/revoke', { id: bobId })).status).toBe(403);
    for (const id of ['', 'zz', '../../x', 'a'.repeat(200)]) {
      expect((await bob.post('/-/web/account/tokens/revoke', { csrf: bob.csrf(), id })).status).toBe(404);
    }
    expect((await request(`${registry.url}/-/whoami`, { token: bobToken })).status).toBe(200);
  });

  it('creates a token with limits, shows it once, then lists it with its limits and last use', async () => {
    const client = await signedIn('bob', 'pw-bob');
    await client.get('/-/web/account');
    const res = await client.post('/-/web/account/tokens', {
      csrf: client.csrf(),
      name: 'ci build',
      access: 'readonly',
      packages: 'com.studio.*, com.other.tool',
      cidr: '127.0.0.0/8, ::1/128',
      expires: '30',
      password: 'pw-bob',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const token = /<code id="new-token">([A-Za-z0-9_-]{43})<\/code>/.exec(res.html)?.[1];
    expect(token).toBeDefined();
    expect((await request(`${registry.url}/-/whoami`, { token })).body.username).toBe('bob');
    await registry.services.tokenUses.flush();

    const page = squash((await client.get('/-/web/account')).html);
    expect(page).not.toContain(token!);
    expect(page).toContain(`<code>${token!.slice(0, 6)}…</code>`);
    expect(page).toContain('ci build');
    expect(page).toContain('read-only; packages com.studio.*, com.other.tool; from 127.0.0.0/8, ::1/128');
    // Created now, used now (the last use is written in batches), expiring in 30 days.
    const row = new RegExp(
      `<code>${token!.slice(0, 6)}…</code></td><td data-label="Name">ci build</td>` +
        '<td data-label="Created"><time datetime="([^"]+)">[^<]*</time></td><td data-label="Last used"><time datetime="([^"]+)">' +
        '[^<]*</time>from<code>(127\\.0\\.0\\.1|::1|::ffff:127\\.0\\.0\\.1)</code></td>' +
        '<td data-label="Expires"><time datetime="([^"]+)">',
    ).exec(page);
    expect(row, page).not.toBeNull();
    const now = new Date(clock).toISOString();
    expect([row![1], row![2]]).toEqual([now, now]);
    expect(Date.parse(row![4]!) - clock).toBe(30 * 86_400_000);
  });

  it('refuses a wrong password or a bad limit with the reason on the page, creating nothing', async () => {
    const client = await signedIn('bob', 'pw-bob');
    await client.get('/-/web/account');
    const count = async () => (await registry.storage.registry.tokens.listOfUser('', 'bob')).length;
    const before = await count();
    const wrong = await client.post('/-/web/account/tokens', { csrf: client.csrf(), name: 'x', password: 'not-pw' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('Invalid credentials: wrong user name or password');
    expect(wrong.html).toContain('value="x"');
    const bad = await client.post('/-/web/account/tokens', { csrf: client.csrf(), cidr: 'nowhere', password: 'pw-bob' });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('is not a CIDR range such as 192.168.0.0/16');
    expect((await client.post('/-/web/account/tokens', { name: 'x', password: 'pw-bob' })).status).toBe(403);
    expect(await count()).toBe(before);
  });

  it('ties a refused token form to its text fields, as the other forms are, and types every one of them', async () => {
    const client = await signedIn('bob', 'pw-bob');
    const fresh = squash((await client.get('/-/web/account')).html);
    const inputs = (html: string, id: string) => new RegExp(`<input id="${id}"[^>]*>`).exec(html)?.[0] ?? '';
    const TEXT_FIELDS = ['token-name', 'token-packages', 'token-cidr', 'token-expires', 'token-password'];
    for (const id of TEXT_FIELDS) {
      expect(inputs(fresh, id), id).toMatch(/ type="(text|password)"/);
      expect(inputs(fresh, id), id).not.toContain('aria-invalid');
    }
    expect(fresh).not.toContain('id="token-error"');

    const refused = await client.post('/-/web/account/tokens', {
      csrf: client.csrf(),
      name: 'ci',
      cidr: 'nowhere',
      expires: '30',
      password: 'pw-bob',
    });
    expect(refused.status).toBe(422);
    const html = squash(refused.html);
    expect(html).toMatch(/<div id="token-error" class="error" role="alert">&#39;nowhere&#39; is not a CIDR range/);
    for (const id of TEXT_FIELDS) {
      // after the field's hint, when it has one
      expect(inputs(html, id), id).toMatch(/ aria-invalid="true" aria-describedby="(token-[a-z]+-hint )?token-error"/);
    }
    expect(inputs(html, 'token-cidr')).toContain('aria-describedby="token-cidr-hint token-error"');
    expect(html).toContain('<span id="token-cidr-hint" class="hint">');
    // what was typed is kept, except the password
    expect(inputs(html, 'token-name')).toContain('value="ci"');
    expect(inputs(html, 'token-cidr')).toContain('value="nowhere"');
    expect(inputs(html, 'token-expires')).toContain('value="30"');
    expect(inputs(html, 'token-password')).not.toContain('value=');
    // the two-factor form below is not the one refused
    expect(inputs(html, 'two-factor-password')).not.toContain('aria-invalid');
  });

  it('sends a signed-out revoke to the sign-in page and revokes nothing', async () => {
    const client = new WebClient(registry.url);
    await client.get('/-/web/signin');
    const res = await client.post('/-/web/account/tokens/revoke', { csrf: client.csrf(), id: '0123456789abcdef' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/-\/web\/signin/);
  });
});
