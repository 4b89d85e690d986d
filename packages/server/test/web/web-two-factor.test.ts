import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { WebClient, decodeEntities, squash } from './web-client.js';

/**
 * Two-factor enrolment on the web account page: a QR code drawn by the server, a first code to
 * confirm, recovery codes shown once and good once on the web and through npm's login alike,
 * and switching it off. The registry runs on the test's clock, so the test knows each code.
 */
let registry: TestRegistry;
let clock = Date.parse('2026-06-01T09:00:00.000Z');
const PASSWORD = 'zoe has two factors';

beforeAll(async () => {
  registry = await startRegistry({ now: () => new Date(clock) });
  await loginUser(registry.url, 'zoe', PASSWORD);
});
afterAll(async () => {
  await registry?.close();
});

function nextCode(secret: string): string {
  clock += 60_000;
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock });
}

async function signedIn(otp?: string): Promise<{ client: WebClient; status: number; html: string }> {
  const client = new WebClient(registry.url);
  await client.get('/-/web/signin');
  const res = await client.post('/-/web/signin', {
    csrf: client.csrf(),
    name: 'zoe',
    password: PASSWORD,
    ...(otp ? { otp } : {}),
  });
  return { client, status: res.status, html: res.html };
}

const secretOf = (html: string) => /<code id="two-factor-secret">([A-Z2-7]+)<\/code>/.exec(html)?.[1];

describe('two-factor sign-in on the web account page', () => {
  let secret: string;
  let recovery: string[];

  it('begins with the password: a QR code drawn inline and its secret, pending until a first code', async () => {
    const { client } = await signedIn();
    const page = await client.get('/-/web/account');
    expect(squash(page.html)).toContain('<h2 id="two-factor">Two-factor sign-in</h2>');

    const wrong = await client.post('/-/web/account/two-factor/begin', {
      csrf: client.csrf(),
      mode: 'auth-and-writes',
      password: 'nope',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('Wrong password.');
    expect((await registry.storage.registry.users.get('', 'zoe'))?.secondFactor).toBeUndefined();

    const begun = await client.post('/-/web/account/two-factor/begin', {
      csrf: client.csrf(),
      mode: 'auth-and-writes',
      password: PASSWORD,
    });
    expect(begun.status).toBe(200);
    expect(begun.html).toMatch(
      /<figure class="qr-code" role="img" aria-label="QR code of your two-factor secret">\s*<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 \d+ \d+">/,
    );
    // No image from anywhere else: the code is in the page.
    expect(begun.html).not.toMatch(/<img[^>]+qr/i);
    secret = secretOf(begun.html)!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect((await registry.storage.registry.users.get('', 'zoe'))?.secondFactor).toMatchObject({ pending: true, secret });
    // A reload shows the same enrolment again (nothing is lost by leaving the page).
    expect(secretOf((await client.get('/-/web/account')).html)).toBe(secret);
  });

  it('confirms with a first code and shows the recovery codes once', async () => {
    const { client } = await signedIn();
    const wrong = await client.post('/-/web/account/two-factor/confirm', { csrf: client.csrf(), code: '000000' });
    expect(wrong.status).toBe(422);
    expect(decodeEntities(wrong.html)).toContain('That code is not the current one of the authenticator app: try the next code.');

    const done = await client.post('/-/web/account/two-factor/confirm', { csrf: client.csrf(), code: nextCode(secret) });
    expect(done.status).toBe(200);
    recovery = [...done.html.matchAll(/<li><code>([0-9a-f]{16})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(recovery).toHaveLength(10);
    const later = await client.get('/-/web/account');
    expect(squash(later.html)).toContain('On: a code is asked when signing in and for every change. 10 recovery codes left.');
    expect(later.html).not.toContain(recovery[0]);
  });

  it('a sign-in then needs a code; a recovery code works once, on the web and through npm alike', async () => {
    expect((await signedIn()).status).toBe(401);
    expect((await signedIn(recovery[0])).status).toBe(303);
    expect((await signedIn(recovery[0])).status).toBe(401);

    const npmLogin = (otp: string) =>
      request(`${registry.url}/-/user/org.couchdb.user:zoe`, {
        method: 'PUT',
        headers: { 'npm-otp': otp },
        body: { name: 'zoe', password: PASSWORD },
      });
    expect((await npmLogin(recovery[1]!)).status).toBe(201);
    expect((await npmLogin(recovery[1]!)).status).toBe(401);
    const { client } = await signedIn(nextCode(secret));
    expect(squash((await client.get('/-/web/account')).html)).toContain('8 recovery codes left.');
  });

  it('switches off with the password and a code; a wrong code changes nothing', async () => {
    const { client } = await signedIn(nextCode(secret));
    const wrong = await client.post('/-/web/account/two-factor/disable', {
      csrf: client.csrf(),
      password: PASSWORD,
      code: '000000',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('That code is not the current one of your authenticator app');
    expect((await registry.storage.registry.users.get('', 'zoe'))?.secondFactor).toMatchObject({ pending: false });

    const off = await client.post('/-/web/account/two-factor/disable', {
      csrf: client.csrf(),
      password: PASSWORD,
      code: nextCode(secret),
    });
    expect(off.status).toBe(200);
    expect(off.html).toContain('Set up two-factor sign-in');
    expect((await registry.storage.registry.users.get('', 'zoe'))?.secondFactor).toBeUndefined();
    expect((await signedIn()).status).toBe(303);
  });

  it('refuses a form without its CSRF token', async () => {
    const { client } = await signedIn();
    const res = await client.post('/-/web/account/two-factor/begin', { mode: 'auth-only', password: PASSWORD });
    expect(res.status).toBe(403);
    expect((await registry.storage.registry.users.get('', 'zoe'))?.secondFactor).toBeUndefined();
  });
});
