import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { npmLines, NpmClient, cliVersion, expectSuccess, request, startRegistry, type TestRegistry } from '@pkg/testkit';

/**
 * Two-factor sign-in as npm 11 and npm 10 drive it, unchanged: `npm profile enable-2fa
 * auth-and-writes` (password, the secret printed, a first code), then every login and write
 * asks for a code (`WWW-Authenticate: OTP`; npm takes `--otp`), automation tokens are not
 * asked, and `npm profile disable-2fa` switches it off. The registry's clock is the test's, so
 * each code is of a step of its own (a code is good once).
 */
let registry: TestRegistry;
let clock = Date.parse('2026-03-01T10:00:00.000Z');
beforeAll(async () => {
  registry = await startRegistry({ now: () => new Date(clock) });
});
afterAll(async () => {
  await registry?.close();
});

/** The code of the registry's current time step, after moving its clock one minute on. */
function nextCode(secret: string): string {
  clock += 60_000;
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock });
}

const clients = npmLines();

describe.each(clients)('$label with two-factor sign-in', ({ label, major, cli }) => {
  const user = `tfa${major}`;
  const password = 'a password with two factors';
  const name = `com.acme.tfa${major}`;
  let npm: NpmClient;
  let secret = '';

  beforeAll(async () => {
    expect(Number(cliVersion(cli()).split('.')[0]), `${label} version`).toBe(major);
    npm = await NpmClient.create(cli(), registry.url);
    expectSuccess(await npm.login(user, password, `${user}@example.com`, 'adduser'), 'npm adduser');
  });
  afterAll(async () => {
    await npm?.cleanup();
  });

  it('profile enable-2fa auth-and-writes enrols with the printed secret and a first code', async () => {
    const enabled = await npm.run(['profile', 'enable-2fa', 'auth-and-writes'], {
      prompts: [
        { prompt: /password:/i, answer: password },
        {
          prompt: /OTP code from your authenticator/,
          answer: (output) => {
            secret = /Or enter code:\s+([A-Z2-7]+)/.exec(output)![1]!;
            return nextCode(secret);
          },
        },
      ],
      timeoutMs: 60_000,
    });
    expectSuccess(enabled, 'npm profile enable-2fa');
    expect(enabled.stdout).toContain('2FA successfully enabled');
    expect(enabled.stdout.match(/^\t[0-9a-f]{16}$/gm)).toHaveLength(10);
    const profile = JSON.parse(expectSuccess(await npm.run(['profile', 'get', '--json']), 'npm profile get').stdout);
    expect(profile.tfa).toEqual({ mode: 'auth-and-writes', pending: false });
  });

  it('a publish without a code is refused with npm asking for one; with --otp it lands', async () => {
    const dir = await npm.dir(`pkg-${major}`, { name, version: '1.0.0' });
    const refused = await npm.run(['publish'], { cwd: dir });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('This operation requires a one-time password');
    expect(await registry.storage.packages.package('', name).read()).toBeUndefined();
    expectSuccess(await npm.run(['publish', `--otp=${nextCode(secret)}`], { cwd: dir }), 'npm publish --otp');
    expect(Object.keys((await registry.storage.packages.package('', name).read())!.document.versions)).toEqual(['1.0.0']);
  });

  it('login asks for a code too', async () => {
    const refused = await npm.login(user, password, `${user}@example.com`);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/one-time password/);
    const prompts = [
      { prompt: /Username:/, answer: user },
      { prompt: /Password:/, answer: password },
    ];
    const loggedIn = await npm.run(['login', '--auth-type=legacy', `--otp=${nextCode(secret)}`], { prompts, timeoutMs: 60_000 });
    expectSuccess(loggedIn, 'npm login --otp');
  });

  it('an automation token publishes without a code', async () => {
    const login = (await npm.token())!;
    const created = await request(`${registry.url}/-/npm/v1/tokens`, {
      method: 'POST',
      token: login,
      headers: { 'npm-otp': nextCode(secret) },
      body: { password, automation: true },
    });
    expect(created.status, created.text).toBe(201);
    const res = await request(`${registry.url}/-/package/${name}/dist-tags/beta`, {
      method: 'PUT',
      token: created.body.token,
      body: '1.0.0',
    });
    expect(res.status).toBe(200);
    const ordinary = await request(`${registry.url}/-/package/${name}/dist-tags/next`, {
      method: 'PUT',
      token: login,
      body: '1.0.0',
    });
    expect(ordinary.status).toBe(401);
    expect(ordinary.headers.get('www-authenticate')).toBe('OTP');
  });

  it('profile disable-2fa with a code switches it off', async () => {
    const disabled = await npm.run(['profile', 'disable-2fa', `--otp=${nextCode(secret)}`], {
      prompts: [{ prompt: /password:/i, answer: password }],
      timeoutMs: 60_000,
    });
    expectSuccess(disabled, 'npm profile disable-2fa');
    expect(disabled.stdout).toContain('Two factor authentication disabled.');
    const dir = await npm.dir(`pkg2-${major}`, { name, version: '1.1.0' });
    expectSuccess(await npm.run(['publish'], { cwd: dir }), 'npm publish without 2FA');
  });
});
