import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  npmLines,
  NpmClient,
  cliVersion,
  expectSuccess,
  publishFixtures,
  request,
  startRegistry,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * `npm token create|list|revoke` of the real npm 11 and npm 10, unchanged, against
 * `/-/npm/v1/tokens`; the tokens they make keep their limits. npm 11.19 no longer sends
 * `--read-only` (its read-only is `--packages-and-scopes-permission=read-only`), npm 10 sends
 * `readonly`: each is driven the way it asks for a read-only token.
 */
let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry();
});
afterAll(async () => {
  await registry?.close();
});

// npm 11 asks for a read-only token with its own flag; npm 10 sends `readonly`.
const clients = npmLines().map((line) => ({
  ...line,
  readOnly: line.major === 11 ? ['--packages-and-scopes-permission=read-only'] : ['--read-only'],
}));

describe.each(clients)('$label token', ({ label, major, cli, readOnly }) => {
  const user = `tokens${major}`;
  const password = 'a password for tokens';
  const name = `com.acme.tokens${major}`;
  let npm: NpmClient;
  let login: string;

  beforeAll(async () => {
    expect(Number(cliVersion(cli()).split('.')[0]), `${label} version`).toBe(major);
    npm = await NpmClient.create(cli(), registry.url);
    expectSuccess(await npm.login(user, password, `${user}@example.com`, 'adduser'), 'npm adduser');
    login = (await npm.token())!;
    await publishFixtures(registry.url, login, { [name]: [{ version: '1.0.0' }] });
  });
  afterAll(async () => {
    await npm?.cleanup();
  });

  const create = (args: string[]) =>
    npm.run(['token', 'create', ...args], { prompts: [{ prompt: /password:/i, answer: password }], timeoutMs: 60_000 });

  /** Runs npm with another token in its .npmrc, then puts the login's token back. */
  async function withToken<T>(token: string, run: () => Promise<T>): Promise<T> {
    const npmrc = path.join(npm.root, 'home', '.npmrc');
    const host = new URL(registry.url).host;
    await writeFile(npmrc, `//${host}/:_authToken=${token}\n`);
    try {
      return await run();
    } finally {
      await writeFile(npmrc, `//${host}/:_authToken=${login}\n`);
    }
  }

  it('create makes a read-only token limited to an address range, shown once', async () => {
    const created = expectSuccess(await create([...readOnly, '--cidr=127.0.0.0/8']), 'npm token create');
    const token = /token ([A-Za-z0-9_-]{43})/.exec(created.stdout)?.[1];
    expect(token, created.stdout).toBeDefined();
    expect(created.stdout).toContain('with IP whitelist: 127.0.0.0/8');
    const who = await request(`${registry.url}/-/whoami`, { token });
    expect(who.body.username).toBe(user);

    const dir = await npm.dir(`ro-${major}`, { name, version: '2.0.0' });
    const refused = await withToken(token!, () => npm.run(['publish'], { cwd: dir }));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('This token is read-only');
    expect(Object.keys((await registry.storage.packages.package('', name).read())!.document.versions)).toEqual(['1.0.0']);
  });

  it('a token limited to other addresses is refused with the reason npm prints', async () => {
    const created = expectSuccess(await create(['--cidr=10.0.0.0/8']), 'npm token create');
    const token = /token ([A-Za-z0-9_-]{43})/.exec(created.stdout)![1]!;
    const view = await withToken(token, () => npm.run(['view', name, 'version']));
    expect(view.code).not.toBe(0);
    expect(view.stderr).toMatch(/This token may not be used from \S+: it is limited to 10\.0\.0\.0\/8/);
  });

  it('list shows each token by its first characters and id, and revoke ends one', async () => {
    const listed = expectSuccess(await npm.run(['token', 'list', '--json']), 'npm token list --json');
    const tokens = JSON.parse(listed.stdout) as {
      key: string;
      token: string;
      readonly: boolean;
      cidr_whitelist: string[] | null;
    }[];
    // The login's token and the two created above.
    expect(tokens).toHaveLength(3);
    expect(tokens.filter((t) => t.readonly)).toHaveLength(1);
    expect(tokens.map((t) => t.cidr_whitelist)).toContainEqual(['10.0.0.0/8']);
    const text = expectSuccess(await npm.run(['token', 'list']), 'npm token list').stdout;
    for (const t of tokens) expect(text).toContain(`${t.token}…`);
    expect(text).not.toContain(login);

    const created = expectSuccess(await create([]), 'npm token create');
    const token = /token ([A-Za-z0-9_-]{43})/.exec(created.stdout)![1]!;
    const key = (await request(`${registry.url}/-/npm/v1/tokens`, { token: login })).body.objects[0].key as string;
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(200);
    const revoked = expectSuccess(await npm.run(['token', 'revoke', key.slice(0, 8)]), 'npm token revoke');
    expect(revoked.stdout).toContain('Removed 1 token');
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(401);
    expect((await request(`${registry.url}/-/whoami`, { token: login })).status).toBe(200);
  });
});
