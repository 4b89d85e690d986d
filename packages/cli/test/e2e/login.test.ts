import { readFile, stat, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import { loginUser, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { EncryptedFileTokenStore } from '../../src/auth/encrypted-file.js';
import { makeHome, pipedLogin, runPkg, runPkgInPty, type Home } from '../support/spawn.js';
import type { UntypedJson } from '@pkg/testkit';

const SEP = '─'.repeat(40);
let registry: TestRegistry;

beforeAll(async () => {
  registry = await startRegistry();
});
afterAll(async () => {
  await registry?.close();
});

/** The token the encrypted file holds for the test registry's host. */
async function storedTokenOf(home: Home): Promise<string> {
  const store = new EncryptedFileTokenStore({
    fs,
    dir: path.dirname(home.tokenFile),
    sleep: async () => undefined,
    now: () => new Date(),
  });
  return (await store.get(new URL(registry.url).host))!;
}

const tokenOf = async (file: string, url: string) =>
  (parse(await readFile(file, 'utf8')) as UntypedJson).npmAuth[url].token as string;

describe('pkg login', () => {
  it('asks in a terminal without echoing the password, then stores and verifies the token', async () => {
    const home = await makeHome();
    const password = 'pty-Secret-9f3k';
    const result = await runPkgInPty(
      ['login', '--registry', registry.url],
      [
        ['Username: ', 'ptyuser'],
        ['Password: ', password],
        ['Email: ', 'ptyuser@example.com'],
      ],
      { home },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // A terminal gets colours: the success line is green.
    expect(result.stdout).toContain('\x1b[32mSuccessfully authenticated!\x1b[39m');
    const esc = String.fromCharCode(27);
    // On a loaded machine the spinner may show while the registry answers: its frames and the
    // clearing of its line are not part of the transcript.
    const transcript = result.stdout
      .replace(new RegExp(`(\r${esc}\\[2K[^\r\n]*)+\r${esc}\\[2K`, 'g'), '')
      .replace(/\r/g, '')
      .replace(new RegExp(`${esc}\\[\\d+m`, 'g'), '');
    expect(transcript).not.toContain(password);
    expect(transcript).toContain(
      [
        'Registry Login',
        SEP,
        `Registry: ${registry.url}`,
        SEP,
        'Username: ptyuser',
        'Password: [hidden]',
        'Email: ptyuser@example.com',
        SEP,
        "Created account 'ptyuser'",
        'Successfully authenticated!',
        'Token stored securely in encrypted file.',
        `Registry configured: ${registry.url}`,
      ].join('\n'),
    );
    const whoami = await runPkg(['whoami'], { home });
    expect(whoami).toMatchObject({ code: 0, stderr: '' });
    expect(whoami.stdout).toBe(`Username: ptyuser\nEmail: ptyuser@example.com\nRegistry: ${registry.url}\n`);
  });

  it('reads answers piped on stdin and prints the same transcript', async () => {
    const home = await makeHome();
    const result = await pipedLogin(home, registry.url, 'piped', 'piped-Secret-1');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'Registry Login',
        SEP,
        `Registry: ${registry.url}`,
        SEP,
        'Username: piped',
        'Password: [hidden]',
        'Email: piped@example.com',
        SEP,
        "Created account 'piped'",
        'Successfully authenticated!',
        'Token stored securely in encrypted file.',
        `Registry configured: ${registry.url}`,
        '',
      ].join('\n'),
    );
    // The registry setting was written to the XDG config file; the token is encrypted at rest.
    expect(JSON.parse(await readFile(home.configFile, 'utf8'))).toEqual({ registry: registry.url });
    expect((await stat(home.keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(home.tokenFile)).mode & 0o777).toBe(0o600);
    const tokenFile = await readFile(home.tokenFile, 'utf8');
    expect(tokenFile).not.toContain('piped-Secret-1');
    expect(Object.keys(JSON.parse(tokenFile).records)).toEqual([new URL(registry.url).host]);
    const whoami = await runPkg(['whoami', '--json'], { home });
    expect(JSON.parse(whoami.stdout)).toEqual({
      success: true,
      username: 'piped',
      email: 'piped@example.com',
      registry: registry.url,
    });
  });

  it('does not print "Registry configured" or change the config when --registry is not given', async () => {
    const home = await makeHome();
    const result = await runPkg(['login'], {
      home,
      env: { PKG_REGISTRY: registry.url },
      input: 'noflag\npw-noflag\nnoflag@example.com\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Token stored securely in encrypted file.\n');
    expect(result.stdout).not.toContain('Registry configured');
    await expect(stat(home.configFile)).rejects.toThrow();
  });

  it('prints only JSON on stdout with --json, prompts going to stderr', async () => {
    const home = await makeHome();
    const result = await pipedLogin(home, registry.url, 'jsonuser', 'pw-json', ['--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      success: true,
      registry: registry.url,
      username: 'jsonuser',
      email: 'jsonuser@example.com',
      created: true,
      tokenStore: 'encrypted file',
      previousToken: 'none',
      registryConfigured: true,
    });
    expect(result.stderr).toContain('Password: [hidden]');
  });

  it('answers a wrong password with the spec message and hint, exit 1, storing nothing', async () => {
    await loginUser(registry.url, 'wrongpw', 'right-password');
    const home = await makeHome();
    const result = await pipedLogin(home, registry.url, 'wrongpw', 'not-the-password');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: Authentication failed: Invalid credentials\nHint: Check your username and password, or contact the registry administrator.\n',
    );
    expect(result.stdout).not.toContain('Successfully');
    await expect(stat(home.tokenFile)).rejects.toThrow();
    await expect(stat(home.configFile)).rejects.toThrow();

    const json = await pipedLogin(home, registry.url, 'wrongpw', 'not-the-password', ['--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      success: false,
      error: 'Authentication failed: Invalid credentials',
      code: 'INVALID_CREDENTIALS',
    });
  });

  it('reports a token that cannot be stored, and revokes it again', async () => {
    const home = await makeHome();
    const blocker = `${home.dir}/not-a-directory`;
    await writeFile(blocker, 'x');
    const result = await pipedLogin(home, registry.url, 'nostore', 'pw-nostore', ['--upmconfig'], {
      PKG_DATA_DIR: `${blocker}/data`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: Failed to store authentication token\nHint: .*ENOTDIR/);
    expect(result.stdout).not.toContain('Successfully authenticated!');
    await expect(stat(home.upmconfig)).rejects.toThrow();
    // The token the registry issued was revoked again: the user holds none.
    const tokens = await registry.storage.registry.tokens.list('');
    expect(tokens.filter((token) => token.user === 'nostore')).toEqual([]);
  });

  it('reports a tampered token file on whoami, and replaces the record on the next login', async () => {
    const home = await makeHome();
    expect((await pipedLogin(home, registry.url, 'tamper')).code).toBe(0);
    const doc = JSON.parse(await readFile(home.tokenFile, 'utf8'));
    const record = doc.records[new URL(registry.url).host];
    const data = Buffer.from(record.data, 'base64');
    data[3]! ^= 0x80;
    record.data = data.toString('base64');
    await writeFile(home.tokenFile, JSON.stringify(doc));

    const whoami = await runPkg(['whoami'], { home });
    expect(whoami.code).toBe(1);
    expect(whoami.stderr).toMatch(
      /^Error: Failed to read the stored authentication token: .*failed authentication.*\nHint: Run `pkg login` again to replace it\.\n$/,
    );
    expect((await pipedLogin(home, registry.url, 'tamper')).code).toBe(0);
    expect((await runPkg(['whoami'], { home })).stdout).toContain('Username: tamper');
  });

  it('fails with exit 2 when stdin ends before every answer', async () => {
    const home = await makeHome();
    const result = await runPkg(['login', '--registry', registry.url], { home, input: 'onlyname\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: Input ended before every answer was given\nHint: /);
  });

  it('keeps the tokens of two registry hosts apart', async () => {
    const home = await makeHome();
    const a = `http://a.localhost:${registry.port}`;
    const b = `http://b.localhost:${registry.port}`;
    expect((await pipedLogin(home, a, 'alice')).code).toBe(0);
    expect((await pipedLogin(home, b, 'bob')).code).toBe(0);
    const records = JSON.parse(await readFile(home.tokenFile, 'utf8')).records;
    expect(Object.keys(records).sort()).toEqual([`a.localhost:${registry.port}`, `b.localhost:${registry.port}`]);

    expect((await runPkg(['whoami', '--registry', a], { home })).stdout).toContain('Username: alice');
    expect((await runPkg(['whoami', '--registry', b], { home })).stdout).toContain('Username: bob');
    // The last login set the default registry.
    expect((await runPkg(['whoami'], { home })).stdout).toContain(`Registry: ${b}`);

    const out = await runPkg(['logout', '--registry', a], { home });
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toBe(`Logged out of ${a}.\nToken revoked and removed from the encrypted file.\n`);
    const gone = await runPkg(['whoami', '--registry', a], { home });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(`Error: Not logged in to ${a}\nHint: Run \`pkg login --registry ${a}\`.\n`);
    expect((await runPkg(['whoami', '--registry', b], { home })).stdout).toContain('Username: bob');
  });

  it('lets concurrent logins to different hosts all land in the token file', async () => {
    const home = await makeHome();
    const hosts = ['c1', 'c2', 'c3', 'c4'].map((h) => `http://${h}.localhost:${registry.port}`);
    const results = await Promise.all(hosts.map((url, i) => pipedLogin(home, url, `conc${i}`)));
    for (const r of results) expect(r.code).toBe(0);
    for (const [i, url] of hosts.entries()) {
      expect((await runPkg(['whoami', '--registry', url], { home })).stdout).toContain(`Username: conc${i}`);
    }
  });

  it('uses PKG_TOKEN instead of the stored token', async () => {
    const home = await makeHome();
    const token = await loginUser(registry.url, 'ciuser');
    const result = await runPkg(['whoami', '--registry', registry.url], { home, env: { PKG_TOKEN: token } });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Username: ciuser');

    const rejected = await runPkg(['whoami', '--registry', registry.url], { home, env: { PKG_TOKEN: 'not-a-valid-token' } });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(
      /^Error: Authentication failed: the registry rejected the token in PKG_TOKEN\nHint: .*PKG_TOKEN/,
    );
    expect(rejected.stderr).not.toContain('not-a-valid-token');
  });

  it('says when it created the account, and --no-signup refuses to create one', async () => {
    const home = await makeHome();
    const refused = await pipedLogin(home, registry.url, 'cautious', 'secret-password', ['--no-signup']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: Authentication failed: Invalid credentials\nHint: .*--no-signup/);
    expect(await registry.storage.registry.users.get('', 'cautious')).toBeUndefined();

    const created = await pipedLogin(home, registry.url, 'cautious', 'secret-password', ['--json']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      success: true,
      username: 'cautious',
      created: true,
      previousToken: 'none',
    });

    const existing = await pipedLogin(home, registry.url, 'cautious', 'secret-password', ['--no-signup']);
    expect(existing.code).toBe(0);
    expect(existing.stdout).not.toContain('Created account');
    expect(existing.stdout).toContain('Successfully authenticated!');
  });

  it('revokes the token a new login replaces', async () => {
    const home = await makeHome();
    expect((await pipedLogin(home, registry.url, 'twice')).code).toBe(0);
    const firstToken = await storedTokenOf(home);

    const again = await pipedLogin(home, registry.url, 'twice');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('The token it replaces was revoked.');
    expect((await request(`${registry.url}/-/whoami`, { token: firstToken })).status).toBe(401);
    const secondToken = await storedTokenOf(home);
    expect((await request(`${registry.url}/-/whoami`, { token: secondToken })).status).toBe(200);
  });

  it('writes the token to ~/.upmconfig.toml with --upmconfig, keeps other entries, and logout removes it', async () => {
    const home = await makeHome();
    const original = '[npmAuth."https://other.example"]\ntoken = "other-token"\nalwaysAuth = true\n';
    await writeFile(home.upmconfig, original);
    const login = await pipedLogin(home, registry.url, 'unity', 'unity-pw', ['--upmconfig']);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`Unity credentials written to ${home.upmconfig}\n`);
    const doc = parse(await readFile(home.upmconfig, 'utf8')) as UntypedJson;
    expect(doc.npmAuth['https://other.example']).toEqual({ token: 'other-token', alwaysAuth: true });
    const token = doc.npmAuth[registry.url].token as string;
    expect((await request(`${registry.url}/-/whoami`, { token })).body.username).toBe('unity');
    expect((await stat(home.upmconfig)).mode & 0o777).toBe(0o600);

    const logout = await runPkg(['logout'], { home });
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain(`Unity credentials removed from ${home.upmconfig}`);
    expect(parse(await readFile(home.upmconfig, 'utf8'))).toEqual({
      npmAuth: { 'https://other.example': { token: 'other-token', alwaysAuth: true } },
    });
    // Revoked on the registry, not only forgotten.
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(401);
  });

  it('honours UPM_USER_CONFIG_FILE', async () => {
    const home = await makeHome();
    const file = `${home.dir}/custom-upm.toml`;
    const result = await pipedLogin(home, registry.url, 'unity2', 'pw', ['--upmconfig'], { UPM_USER_CONFIG_FILE: file });
    expect(result.code).toBe(0);
    const token = await tokenOf(file, registry.url);
    expect((await request(`${registry.url}/-/whoami`, { token })).body.username).toBe('unity2');
    await expect(stat(home.upmconfig)).rejects.toThrow();
  });

  it('never shows the password or the token, even with --verbose', async () => {
    const home = await makeHome();
    const login = await pipedLogin(home, registry.url, 'verbose', 'verbose-Secret-77', ['--verbose', '--upmconfig']);
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`PUT ${registry.url}/-/user/org.registry.user%3Averbose`);
    const token = await tokenOf(home.upmconfig, registry.url);
    const logout = await runPkg(['logout', '--verbose'], { home });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain('DELETE');
    expect(logout.stderr).toContain('/-/user/token/***');
    for (const output of [login.stdout, login.stderr, logout.stdout, logout.stderr]) {
      expect(output).not.toContain('verbose-Secret-77');
      expect(output).not.toContain(token);
    }
  });
});

describe('pkg logout and whoami without a token', () => {
  it('report "Not logged in" with exit 1', async () => {
    const home = await makeHome();
    for (const command of ['logout', 'whoami']) {
      const result = await runPkg([command, '--registry', registry.url], { home });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^Error: Not logged in to ${registry.url.replace(/[.]/g, '\\.')}\n`));
    }
  });
});
