import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishBody, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg, runPkgInPty, type Home } from '../support/spawn.js';

// The built `pkg` against a real registry on which the account signs in with two factors
// (auth-and-writes): writes need a one-time password, given with --otp or typed when asked.
// The registry runs on a clock of the test's, so the test knows each code the server expects.
let registry: TestRegistry;
let home: Home;
let token: string;
let secret: string;
let work: string;
let clock = Date.parse('2026-05-01T08:00:00.000Z');
const NAME = 'com.twofactor.tool';
const PASSWORD = 'two factors in pkg';

/** The code of a later time step each time: the server takes each step's code once. */
function nextCode(): string {
  clock += 60_000;
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: clock });
}

beforeAll(async () => {
  registry = await startRegistry({ now: () => new Date(clock) });
  token = await loginUser(registry.url, 'ada', PASSWORD);
  const begun = await request(`${registry.url}/-/npm/v1/user`, {
    method: 'POST',
    token,
    body: { tfa: { mode: 'auth-and-writes', password: PASSWORD } },
  });
  secret = new URL(begun.body.tfa as string).searchParams.get('secret')!;
  const confirmed = await request(`${registry.url}/-/npm/v1/user`, { method: 'POST', token, body: { tfa: [nextCode()] } });
  expect(confirmed.status).toBe(200);
  const published = await request(`${registry.url}/${NAME}`, {
    method: 'PUT',
    token,
    headers: { 'npm-otp': nextCode() },
    body: publishBody(NAME, '1.0.0').body,
  });
  expect(published.status, published.text).toBe(201);
  home = await makeHome();
  work = await mkdtemp(path.join(tmpdir(), 'pkg-2fa-test-'));
});
afterAll(async () => {
  await registry?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const pkg = (args: string[]) => runPkg([...args, '--registry', registry.url], { home, env: { PKG_TOKEN: token } });
const tags = async () => (await request(`${registry.url}/-/package/${NAME}/dist-tags`)).body as Record<string, string>;

describe('pkg with two-factor sign-in', () => {
  it('without a terminal and without --otp: refused with the reason and how to give a code; nothing changes', async () => {
    const result = await pkg(['dist-tag', 'add', `${NAME}@1.0.0`, 'beta']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${registry.url} asks for a one-time password: Changing a dist-tag needs a one-time password from your authenticator app`,
    );
    expect(result.stderr).toContain('Run the command again with --otp <code>');
    expect(await tags()).toEqual({ latest: '1.0.0' });
  });

  it('--otp gives the code; a wrong one is refused as such', async () => {
    const wrong = await pkg(['dist-tag', 'add', `${NAME}@1.0.0`, 'beta', '--otp', '000000']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`${registry.url} did not accept the one-time password`);
    expect(await tags()).toEqual({ latest: '1.0.0' });

    const right = await pkg(['dist-tag', 'add', `${NAME}@1.0.0`, 'beta', '--otp', nextCode()]);
    expect(right.stderr).toBe('');
    expect(right.code).toBe(0);
    expect(await tags()).toEqual({ latest: '1.0.0', beta: '1.0.0' });
  });

  it('publish takes --otp too', async () => {
    const dir = path.join(work, 'tool');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: NAME, version: '1.1.0', godot: '4.2', description: 'A tool' }, null, 2),
    );
    await mkdir(path.join(dir, 'addons', 'tool'), { recursive: true });
    await writeFile(path.join(dir, 'addons', 'tool', 'plugin.cfg'), '[plugin]\nname="Tool"\nscript="tool.gd"\n');
    await writeFile(path.join(dir, 'addons', 'tool', 'tool.gd'), 'extends Node\n');
    const result = await pkg(['publish', dir, '--otp', nextCode()]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((await tags()).latest).toBe('1.1.0');
  });

  it('on a terminal, asks for the code when the registry wants one, and tries again after a wrong one', async () => {
    const code = nextCode();
    const result = await runPkgInPty(
      ['dist-tag', 'add', `${NAME}@1.0.0`, 'next', '--registry', registry.url],
      [
        ['One-time password: ', '123456'],
        ['That code was not accepted; one-time password: ', code],
      ],
      { home, env: { PKG_TOKEN: token } },
    );
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('One-time password: 123456');
    expect((await tags()).next).toBe('1.0.0');
  });
});
