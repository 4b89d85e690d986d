import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  npmLines,
  NpmClient,
  cliVersion,
  loginUser,
  publishFixtures,
  request,
  startRegistry,
  type RunResult,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * Every 401 and 403 reaches npm 10 and 11 users with its own reason: npm prints only the
 * `WWW-Authenticate` header of a 401 whose scheme is neither Bearer nor Basic, and `error` of a
 * 403 (http/challenge.ts). Each case runs the real npm and reads what it printed.
 */
let open: TestRegistry;
let closed: TestRegistry;
/** Full: its package quota is one package, and it holds one. */
let full: TestRegistry;

beforeAll(async () => {
  // The password policy as shipped (the test kit lowers it for throwaway passwords elsewhere).
  open = await startRegistry({ settings: { passwordMinLength: 8 } });
  closed = await startRegistry({ settings: { signup: false, readAccess: 'token' } });
  full = await startRegistry({ settings: { quotaPackages: 1 } });
  await publishFixtures(full.url, await loginUser(full.url, 'ada', 'ada: the password'), {
    'com.acme.only': [{ version: '1.0.0' }],
  });
  await loginUser(open.url, 'ada', 'ada: the password');
  const token = await loginUser(open.url, 'ada', 'ada: the password');
  await publishFixtures(open.url, token, { 'com.acme.reasons': [{ version: '1.0.0' }] });
  // Sign-up is closed there: the administrator's way in is the store.
  await closed.services.auth.login(
    '',
    { name: 'ada', password: 'ada: the password', email: undefined, clientIp: '::1' },
    { signup: true },
  );
});
afterAll(async () => {
  await open?.close();
  await closed?.close();
  await full?.close();
});

const clients = npmLines();

/** What npm printed as its error, lines joined. */
function printed(result: RunResult): string {
  expect(result.code, result.stdout + result.stderr).not.toBe(0);
  return result.stderr;
}

describe.each(clients)('$label prints the reason of every refusal', ({ label, major, cli }) => {
  let npm: NpmClient;
  let npmClosed: NpmClient;

  beforeAll(async () => {
    expect(Number(cliVersion(cli()).split('.')[0]), `${label} version`).toBe(major);
    npm = await NpmClient.create(cli(), open.url);
    npmClosed = await NpmClient.create(cli(), closed.url);
  });
  afterAll(async () => {
    await npm?.cleanup();
    await npmClosed?.cleanup();
  });

  async function useToken(client: NpmClient, registryUrl: string, token: string): Promise<void> {
    await writeFile(path.join(client.root, 'home', '.npmrc'), `//${new URL(registryUrl).host}/:_authToken=${token}\n`);
  }

  it('a wrong password at login', async () => {
    const out = printed(await npm.login('ada', 'not the password', 'ada@example.com'));
    expect(out).toContain("Invalid credentials: wrong password for 'ada', or the account is disabled");
    expect(out).not.toContain('seems to be invalid');
  });

  it('an unknown user where sign-up is closed', async () => {
    const out = printed(await npmClosed.login(`newcomer${major}`, 'a good password', 'new@example.com', 'adduser'));
    expect(out).toContain('sign-up is closed on this registry: only existing accounts can log in, an administrator creates them');
    expect(await closed.storage.registry.users.get('', `newcomer${major}`)).toBeUndefined();
  });

  it('a new password the policy refuses at npm adduser', async () => {
    const out = printed(await npm.login(`weak${major}`, 'iloveyou', 'weak@example.com', 'adduser'));
    expect(out).toContain('password is one of the most common passwords: choose another');
    expect(await open.storage.registry.users.get('', `weak${major}`)).toBeUndefined();
  });

  it('an anonymous read of a registry that requires a token', async () => {
    await writeFile(path.join(npmClosed.root, 'home', '.npmrc'), '');
    const out = printed(await npmClosed.run(['view', 'com.acme.reasons', 'version']));
    expect(out).toContain('This registry requires a token for every request: log in first');
  });

  it('an expired token', async () => {
    const token = `expired-token-of-npm-${major}-${'x'.repeat(24)}`;
    const { hashToken } = await import('../../src/services/tokens.js');
    await open.storage.registry.tokens.create('', {
      hash: hashToken(token),
      user: 'ada',
      createdAt: '2020-01-01T00:00:00.000Z',
      expiresAt: '2020-01-02T00:00:00.000Z',
      readonly: false,
    });
    await useToken(npm, open.url, token);
    const out = printed(await npm.run(['whoami']));
    expect(out).toContain('This token expired at 2020-01-02T00:00:00.000Z: log in again or create a new token');
  });

  it('a revoked token', async () => {
    const token = await loginUser(open.url, 'ada', 'ada: the password');
    expect((await request(`${open.url}/-/user/token/${token}`, { method: 'DELETE' })).status).toBe(200);
    await useToken(npm, open.url, token);
    const out = printed(await npm.run(['whoami']));
    expect(out).toContain('This token is not valid here: it was revoked, or this registry never issued it');
  });

  it('a read-only token asked to publish', async () => {
    const token = await open.services.auth.issueToken('', 'ada', true);
    await useToken(npm, open.url, token);
    const dir = await npm.dir(`readonly-${major}`, { name: 'com.acme.reasons', version: `2.0.${major}` });
    const out = printed(await npm.run(['publish'], { cwd: dir }));
    expect(out).toContain('This token is read-only');
    const stored = await open.storage.packages.package('', 'com.acme.reasons').read();
    expect(Object.keys(stored!.document.versions)).toEqual(['1.0.0']);
  });

  it('a publish past the registry quota', async () => {
    const client = await NpmClient.create(cli(), full.url);
    try {
      await useToken(client, full.url, await loginUser(full.url, 'ada', 'ada: the password'));
      const dir = await client.dir(`quota-${major}`, { name: `com.acme.more${major}`, version: '1.0.0' });
      const out = printed(await client.run(['publish'], { cwd: dir }));
      expect(out).toContain('This registry has reached its quota of 1 packages (1 in use)');
      expect(await full.storage.packages.package('', `com.acme.more${major}`).read()).toBeUndefined();
    } finally {
      await client.cleanup();
    }
  });
});
