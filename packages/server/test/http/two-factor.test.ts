import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { loginUser, publishBody, publishVersion, request, startRegistry, storeSnapshot, type TestRegistry } from '@pkg/testkit';

/**
 * Two-factor sign-in through the profile API on a registry that requires it for publishing:
 * codes are good once, recovery codes once each, passwords sent as Basic are refused for such
 * accounts, and every refusal says why.
 */
let registry: TestRegistry;
let clock = Date.parse('2026-03-01T10:00:00.000Z');
const PASSWORD = 'two factors please';
const USER = `${'/-/user/org.couchdb.user:'}`;

beforeAll(async () => {
  registry = await startRegistry({ now: () => new Date(clock), settings: { requireTwoFactor: true } });
});
afterAll(async () => {
  await registry?.close();
});

function code(secret: string, advance = 60_000): string {
  clock += advance;
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock });
}

async function enrol(token: string): Promise<{ secret: string; recovery: string[] }> {
  const begun = await request(`${registry.url}/-/npm/v1/user`, {
    method: 'POST',
    token,
    body: { tfa: { mode: 'auth-and-writes', password: PASSWORD } },
  });
  expect(begun.status, begun.text).toBe(200);
  expect(begun.body.tfa).toMatch(/^otpauth:\/\/totp\//);
  const secret = new URL(begun.body.tfa).searchParams.get('secret')!;
  const wrong = await request(`${registry.url}/-/npm/v1/user`, { method: 'POST', token, body: { tfa: ['000000'] } });
  expect(wrong.status).toBe(422);
  const done = await request(`${registry.url}/-/npm/v1/user`, { method: 'POST', token, body: { tfa: [code(secret)] } });
  expect(done.status).toBe(200);
  return { secret, recovery: done.body.tfa };
}

describe('two-factor sign-in', () => {
  it('a registry that requires it refuses publishes of accounts without it, saying so', async () => {
    const token = await loginUser(registry.url, 'plain', PASSWORD);
    const before = await storeSnapshot(registry, ['com.acme.plain']);
    const res = await publishVersion(registry.url, token, 'com.acme.plain', '1.0.0');
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/^This registry requires two-factor sign-in to publish/);
    expect(await storeSnapshot(registry, ['com.acme.plain'])).toEqual(before);
  });

  it('once enrolled: writes need a code, each code and each recovery code works once', async () => {
    const token = await loginUser(registry.url, 'ada', PASSWORD);
    const { secret, recovery } = await enrol(token);
    expect(recovery).toHaveLength(10);
    const profile = await request(`${registry.url}/-/npm/v1/user`, { token });
    expect(profile.body).toMatchObject({ name: 'ada', tfa: { mode: 'auth-and-writes', pending: false } });

    const without = await publishVersion(registry.url, token, 'com.acme.ada', '1.0.0');
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('OTP');
    expect(without.body.error).toBe('Publishing needs a one-time password from your authenticator app');
    const first = code(secret);
    const withCode = await request(`${registry.url}/com.acme.ada`, {
      method: 'PUT',
      token,
      headers: { 'npm-otp': first },
      body: publishBody('com.acme.ada', '1.0.0').body,
    });
    expect(withCode.status, withCode.text).toBe(201);
    const tag = (otp: string) =>
      request(`${registry.url}/-/package/com.acme.ada/dist-tags/beta`, {
        method: 'PUT',
        token,
        headers: { 'npm-otp': otp },
        body: '1.0.0',
      });
    expect((await tag(first)).status).toBe(401);
    expect((await tag(recovery[0]!)).status).toBe(200);
    expect((await tag(recovery[0]!)).status).toBe(401);
  });

  it('login needs the code; a password sent as Basic is refused for such an account', async () => {
    const login = (otp?: string) =>
      request(`${registry.url}${USER}ada`, {
        method: 'PUT',
        body: { name: 'ada', password: PASSWORD },
        ...(otp ? { headers: { 'npm-otp': otp } } : {}),
      });
    const asked = await login();
    expect(asked.status).toBe(401);
    expect(asked.headers.get('www-authenticate')).toBe('OTP');
    const user = await registry.storage.registry.users.get('', 'ada');
    expect((await login(code(user!.secondFactor!.secret))).status).toBe(201);
    const basic = await request(`${registry.url}/-/whoami`, {
      headers: { authorization: `Basic ${Buffer.from(`ada:${PASSWORD}`).toString('base64')}` },
    });
    expect(basic.status).toBe(401);
    expect(basic.body.error).toBe(
      "The account 'ada' signs in with two factors: use a token (npm login, pkg login), not its password",
    );
  });

  it('changing a team is a write: it needs a code too', async () => {
    const token = await loginUser(registry.url, 'teamer', PASSWORD);
    const { secret } = await enrol(token);
    const create = (headers: Record<string, string> = {}) =>
      request(`${registry.url}/-/pkg/v1/teams`, { method: 'POST', token, body: { name: 'coded' }, headers });
    const without = await create();
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('OTP');
    expect(await registry.storage.teams.get('', 'coded')).toBeUndefined();
    expect((await create({ 'npm-otp': code(secret) })).status).toBe(201);
  });
});
