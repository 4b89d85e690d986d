import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  npmLines,
  NpmClient,
  cliVersion,
  expectSuccess,
  loginUser,
  request,
  startRegistry,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * The real npm 11 (the machine's) and npm 10 (installed by the test setup) drive every command
 * they have for a registry against one server: legacy login, whoami, publish, view, install,
 * dist-tag, deprecate, unpublish, owner and logout.
 */
let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry();
});
afterAll(async () => {
  await registry.close();
});

const clients = npmLines();

describe.each(clients)('$label', ({ label, major, cli }) => {
  const tag = `npm${major}`;
  const name = `com.acme.${tag}.hello`;
  const user = `alice${major}`;
  const password = 'correct horse battery';
  let npm: NpmClient;
  let packageDir: string;

  beforeAll(async () => {
    expect(Number(cliVersion(cli()).split('.')[0]), `${label} version`).toBe(major);
    npm = await NpmClient.create(cli(), registry.url);
  });
  afterAll(async () => {
    await npm?.cleanup();
  });

  it('adduser creates the account, login (legacy) logs in again, whoami names the user', async () => {
    expectSuccess(await npm.login(user, password, `${user}@example.com`, 'adduser'), 'npm adduser');
    const first = await npm.token();
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expectSuccess(await npm.login(user, password, `${user}@example.com`, 'login'), 'npm login');
    const second = await npm.token();
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    const whoami = expectSuccess(await npm.run(['whoami']), 'npm whoami');
    expect(whoami.stdout.trim()).toBe(user);
  });

  it('publishes a reverse-DNS package with a unity field, and view shows it', async () => {
    packageDir = await npm.dir(
      'package',
      {
        name,
        version: '1.0.0',
        description: `Hello from ${label}`,
        license: 'MIT',
        unity: '2021.3',
        unityRelease: '0f1',
        displayName: 'Hello',
        keywords: ['unity', 'hello'],
      },
      { 'README.md': `# ${name}\n`, 'Runtime/Hello.cs': 'public class Hello {}\n' },
    );
    expectSuccess(await npm.run(['publish'], { cwd: packageDir }), 'npm publish');

    const view = expectSuccess(await npm.run(['view', name, '--json']), 'npm view');
    const viewed = JSON.parse(view.stdout);
    expect(viewed).toMatchObject({
      name,
      version: '1.0.0',
      description: `Hello from ${label}`,
      unity: '2021.3',
      unityRelease: '0f1',
      'dist-tags': { latest: '1.0.0' },
    });
    expect(viewed.dist.tarball).toBe(`${registry.url}/${name}/-/${name}-1.0.0.tgz`);
    expect(viewed.dist.fileCount).toBe(3);
    const doc = (await request(`${registry.url}/${name}`)).body;
    expect(doc.readme).toBe(`# ${name}\n`);
    expect(doc.maintainers).toEqual([{ name: user, email: `${user}@example.com` }]);
    expect(doc.time['1.0.0']).toBeDefined();
  });

  it('installs the package into a project; the lockfile integrity is the registry one', async () => {
    const project = await npm.dir('project', { name: 'project', version: '1.0.0', private: true });
    expectSuccess(await npm.run(['install', name, '--prefer-online'], { cwd: project }), 'npm install');
    const installed = JSON.parse(await readFile(path.join(project, 'node_modules', name, 'package.json'), 'utf8'));
    expect(installed.version).toBe('1.0.0');
    const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8'));
    const entry = lock.packages[`node_modules/${name}`];
    const record = (await request(`${registry.url}/${name}/1.0.0`)).body;
    expect(entry.integrity).toBe(record.dist.integrity);
    expect(entry.resolved).toBe(record.dist.tarball);
  });

  it('dist-tag add, ls and rm', async () => {
    expectSuccess(await npm.run(['dist-tag', 'add', `${name}@1.0.0`, 'stable']), 'npm dist-tag add');
    const ls = expectSuccess(await npm.run(['dist-tag', 'ls', name]), 'npm dist-tag ls');
    expect(ls.stdout).toContain('stable: 1.0.0');
    expect(ls.stdout).toContain('latest: 1.0.0');
    expectSuccess(await npm.run(['dist-tag', 'rm', name, 'stable']), 'npm dist-tag rm');
    expect((await request(`${registry.url}/-/package/${name}/dist-tags`)).body).toEqual({ latest: '1.0.0' });
  });

  it('deprecate sets the message on the version', async () => {
    expectSuccess(await npm.run(['deprecate', `${name}@1.0.0`, 'Please use 1.1.0']), 'npm deprecate');
    expect((await request(`${registry.url}/${name}/1.0.0`)).body.deprecated).toBe('Please use 1.1.0');
  });

  it('shows the specific reason a publish was refused, which npm takes from `error`', async () => {
    const badDir = await npm.dir(
      'bad-unity',
      { name: `${name}.bad`, version: '1.0.0', unity: '2021' },
      { 'README.md': '# bad\n' },
    );
    const refused = await npm.run(['publish'], { cwd: badDir });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("'unity' must be a minimum editor version of the form <major>.<minor>, e.g. 2021.3");
    expect(refused.stderr).not.toContain('Validation failed');
  });

  it('unpublish of one version removes it and its tarball, and the number stays used', async () => {
    await publishNext('1.1.0');
    expect((await request(`${registry.url}/${name}`)).body['dist-tags'].latest).toBe('1.1.0');
    expectSuccess(await npm.run(['unpublish', `${name}@1.1.0`]), 'npm unpublish');
    const doc = (await request(`${registry.url}/${name}`)).body;
    expect(Object.keys(doc.versions)).toEqual(['1.0.0']);
    expect(doc['dist-tags'].latest).toBe('1.0.0');
    expect((await request(`${registry.url}/${name}/-/${name}-1.1.0.tgz`)).status).toBe(404);
    const again = await npm.run(['publish'], { cwd: packageDir });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/409|Conflict|cannot publish/i);
  });

  it('owner ls, add and rm', async () => {
    const other = `bob${major}`;
    await loginUser(registry.url, other);
    const ls = expectSuccess(await npm.run(['owner', 'ls', name]), 'npm owner ls');
    expect(ls.stdout.trim()).toBe(`${user} <${user}@example.com>`);
    expectSuccess(await npm.run(['owner', 'add', other, name]), 'npm owner add');
    expect((await npm.run(['owner', 'ls', name])).stdout).toContain(`${other} <${other}@example.com>`);
    expect((await npm.run(['owner', 'add', 'nobody-at-all', name])).code).not.toBe(0);
    expectSuccess(await npm.run(['owner', 'rm', other, name]), 'npm owner rm');
    expect((await request(`${registry.url}/${name}`)).body.maintainers.map((m: { name: string }) => m.name)).toEqual([user]);
  });

  it('logout revokes the token', async () => {
    const token = await npm.token();
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(200);
    expectSuccess(await npm.run(['logout']), 'npm logout');
    expect(await npm.token()).toBeUndefined();
    expect((await request(`${registry.url}/-/whoami`, { token })).status).toBe(401);
    expect((await npm.run(['whoami'])).code).not.toBe(0);
  });

  async function publishNext(version: string): Promise<void> {
    const manifestPath = path.join(packageDir, 'package.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    await npm.dir('package', { ...manifest, version });
    expectSuccess(await npm.run(['publish'], { cwd: packageDir }), `npm publish ${version}`);
  }
});
