import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishFixtures, startRegistry, tmpProject, tmpUnityProject, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';
import { PROJECT_GODOT, UPROJECT, godot, unity, unreal } from '../support/engine-fixtures.js';

// A studio's habits with the built `pkg` against a real registry: `outdated` failing CI, `why`,
// `list --all`, and messages and files left as a person (or a script) expects them.

let registry: TestRegistry;
let home: Home;
let env: Record<string, string>;
let publisherToken: string;

beforeAll(async () => {
  registry = await startRegistry({ settings: { registryName: 'Studio Packages' } });
  const token = await loginUser(registry.url, 'studio-habits');
  publisherToken = token;
  await publishFixtures(registry.url, token, {
    'com.studio.core': [unity('1.0.0'), unity('1.1.0'), unity('1.2.0'), unity('2.0.0')],
    'com.studio.input': [unity('1.1.0', { 'com.studio.core': '1.1.0' })],
    'com.studio.app': [unity('1.0.0', { 'com.studio.input': '1.1.0' })],
    'com.studio.godot.core': [godot('core', '1.0.0'), godot('core', '1.1.0'), godot('core', '2.0.0')],
    'com.studio.godot.input': [godot('input', '1.0.0', { 'com.studio.godot.core': '1.0.0' })],
    'com.studio.unreal.core': [unreal('StudioCore', '1.0.0'), unreal('StudioCore', '1.1.0')],
    'com.studio.unreal.input': [unreal('StudioInput', '1.0.0', { 'com.studio.unreal.core': '1.0.0' })],
    'com.studio.tools': [unity('1.0.0'), unity('1.1.0'), unity('2.0.0-beta.1')],
  });
  home = await makeHome();
  const temp = path.join(home.dir, 'tmp');
  await mkdir(temp);
  env = { PKG_REGISTRY: registry.url, TMPDIR: temp };
});
afterAll(async () => registry?.close());

async function pkg(args: string[], cwd: string) {
  const result = await runPkg(args, { home, env, cwd });
  return { ...result, json: result.stdout.startsWith('{') ? JSON.parse(result.stdout) : undefined };
}

const scoped = () => [{ name: 'studio', url: registry.url, scopes: ['com.studio'] }];

describe('Unity', () => {
  it('outdated exits 1 with a table while something is behind, 0 once nothing is', async () => {
    const project = await tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: { 'com.studio.app': '1.0.0', 'com.studio.core': '1.1.0' },
        scopedRegistries: scoped(),
      },
    });

    const outdated = await pkg(['outdated'], project.dir);
    expect(outdated.stderr).toBe('');
    expect(outdated.code).toBe(1);
    expect(outdated.stdout).toContain('Package          Current  Wanted  Latest\ncom.studio.core  1.1.0    1.2.0   2.0.0\n');
    expect(outdated.stdout).toContain('1 package can be updated');
    const json = await pkg(['outdated', '--json'], project.dir);
    expect(json.code).toBe(1);
    expect(json.json.outdated).toEqual([
      { package: 'com.studio.core', current: '1.1.0', wanted: '1.2.0', latest: '2.0.0', registry: registry.url },
    ]);

    expect((await pkg(['update', '--latest'], project.dir)).code).toBe(0);
    const upToDate = await pkg(['outdated'], project.dir);
    expect(upToDate.code).toBe(0);
    expect(upToDate.stdout).toContain('Every package is up to date');
  });

  it('why names every chain to a package, and list --all lists the packages only others need', async () => {
    const project = await tmpUnityProject({
      'Packages/manifest.json': {
        dependencies: { 'com.studio.app': '1.0.0', 'com.studio.core': '1.1.0' },
        scopedRegistries: scoped(),
      },
    });

    const why = await pkg(['why', 'com.studio.core', '--json'], project.dir);
    expect(why.code).toBe(0);
    expect(why.json).toMatchObject({
      package: 'com.studio.core@1.1.0',
      direct: true,
      chains: [['com.studio.app@1.0.0', 'com.studio.input@1.1.0', 'com.studio.core@1.1.0']],
    });
    const whyText = await pkg(['why', 'com.studio.input'], project.dir);
    expect(whyText.stdout).toContain(
      'com.studio.input@1.1.0 is needed through 1 chain of dependencies:\n  com.studio.app@1.0.0 → com.studio.input@1.1.0\n',
    );
    const missing = await pkg(['why', 'com.studio.nothing'], project.dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: package 'com\.studio\.nothing' is not in this project\n/);

    const all = await pkg(['list', '--all', '--json'], project.dir);
    expect(all.code).toBe(0);
    expect(
      all.json.packages.map((p: { package: string; requested: string | null; required_by: string[] }) => [
        p.package,
        p.requested,
        p.required_by,
      ]),
    ).toEqual([
      ['com.studio.app', '1.0.0', []],
      ['com.studio.core', '1.1.0', ['com.studio.input@1.1.0']],
      ['com.studio.input', null, ['com.studio.app@1.0.0']],
    ]);
    const plain = await pkg(['list', '--json'], project.dir);
    expect(plain.json.packages.map((p: { package: string }) => p.package)).toEqual(['com.studio.app', 'com.studio.core']);
  });

  it('names the entry it creates after the registry, leaves no empty scopedRegistries behind when the last package goes, and says nothing was updated in words', async () => {
    const manifest = '{\n  "dependencies": {\n    "com.unity.modules.ui": "1.0.0"\n  }\n}\n';
    const project = await tmpUnityProject({ 'Packages/manifest.json': manifest });
    expect((await pkg(['add', 'com.studio.core@1.0.0'], project.dir)).code).toBe(0);
    // The entry is named as the registry calls itself (its registryName setting).
    expect(JSON.parse(await project.read('Packages/manifest.json')).scopedRegistries).toEqual([
      { name: 'Studio Packages', url: registry.url, scopes: ['com.studio.core'] },
    ]);
    expect((await pkg(['uninstall', 'com.studio.core'], project.dir)).code).toBe(0);
    expect(await project.read('Packages/manifest.json')).toBe(manifest);

    const nothing = await pkg(['update', '--json'], project.dir);
    expect(nothing.json.message).toBe('Nothing to update: no package has a newer version it can take');
  });

  it('a usage error in --json is one line: no newline inside the JSON string', async () => {
    const project = await tmpUnityProject({ 'Packages/manifest.json': { dependencies: {} } });
    const result = await pkg(['logoutt', '--json'], project.dir);
    expect(result.code).toBe(2);
    expect(result.json.error).toBe("Unknown command 'logoutt' (Did you mean logout?)");
  });
});

describe('Godot and Unreal', () => {
  it('Godot: outdated, why and list --all read the lock', async () => {
    const project = await tmpProject('pkg-habits-godot-', { 'project.godot': PROJECT_GODOT });
    expect((await pkg(['add', 'com.studio.godot.input@1.0.0'], project.dir)).code).toBe(0);

    const outdated = await pkg(['outdated', '--json'], project.dir);
    expect(outdated.code).toBe(0);
    expect(outdated.json.outdated).toEqual([]);
    expect((await pkg(['add', 'com.studio.godot.core@1.0.0'], project.dir)).code).toBe(0);
    const behind = await pkg(['outdated', '--json'], project.dir);
    expect(behind.code).toBe(1);
    expect(behind.json.outdated).toMatchObject([
      { package: 'com.studio.godot.core', current: '1.0.0', wanted: '1.1.0', latest: '2.0.0' },
    ]);

    const why = await pkg(['why', 'com.studio.godot.core', '--json'], project.dir);
    expect(why.json).toMatchObject({
      direct: true,
      chains: [['com.studio.godot.input@1.0.0', 'com.studio.godot.core@1.0.0']],
    });
    const all = await pkg(['list', '--all'], project.dir);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/com\.studio\.godot\.core\s+1\.0\.0\s+1\.0\.0\s+2\.0\.0\s+com\.studio\.godot\.input@1\.0\.0\n/);
  });

  it('Godot: an update backs up only the files it changes, in a backup that names its project', async () => {
    const project = await tmpProject('pkg-habits-backup-', { 'project.godot': PROJECT_GODOT });
    expect((await pkg(['add', 'com.studio.godot.core@1.0.0'], project.dir)).code).toBe(0);
    const updated = await pkg(['update', '--json'], project.dir);
    expect(updated.code).toBe(0);
    const backup = updated.json.backup_path as string;
    expect(path.dirname(backup)).toBe(env.TMPDIR);
    expect(JSON.parse(await readFile(path.join(backup, 'pkg-backup.json'), 'utf8'))).toEqual({
      project: project.dir,
      created: expect.any(String),
      files: ['pkg.json', 'pkg-lock.json'],
    });
    // The replaced package's files are in the cache and the lock: not copied.
    expect((await readdir(backup)).sort()).toEqual(['pkg-backup.json', 'pkg-lock.json', 'pkg.json']);
  });

  it('Unreal: list --all shows the plugin only another needs, and why names the chain', async () => {
    const project = await tmpProject('pkg-habits-unreal-', { 'Arena.uproject': UPROJECT });
    expect((await pkg(['add', 'com.studio.unreal.input@1.0.0'], project.dir)).code).toBe(0);
    const all = await pkg(['list', '--all', '--json'], project.dir);
    expect(all.json.packages).toMatchObject([
      { package: 'com.studio.unreal.input', requested: '1.0.0', required_by: [] },
      { package: 'com.studio.unreal.core', requested: null, resolved: '1.0.0', required_by: ['com.studio.unreal.input@1.0.0'] },
    ]);
    const why = await pkg(['why', 'com.studio.unreal.core'], project.dir);
    expect(why.stdout).toContain('  com.studio.unreal.input@1.0.0 → com.studio.unreal.core@1.0.0\n');
    // The dependency has a newer version, but only what the manifest lists is `outdated`'s to report.
    expect((await pkg(['outdated'], project.dir)).code).toBe(0);
  });
});

describe("a maintainer's commands", () => {
  const as = (token: string) => ({ ...env, PKG_TOKEN: token });

  it('dist-tag add, ls and rm, refused to another account', async () => {
    const cwd = home.dir;
    const run = (args: string[], token = publisherToken) => runPkg(args, { home, env: as(token), cwd });

    const added = await run(['dist-tag', 'add', 'com.studio.tools@2.0.0-beta.1', 'beta']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toBe('beta → com.studio.tools@2.0.0-beta.1\n');
    const listed = await run(['dist-tag', 'ls', 'com.studio.tools', '--json']);
    expect(JSON.parse(listed.stdout).dist_tags).toEqual({ beta: '2.0.0-beta.1', latest: '2.0.0-beta.1' });

    const stranger = await loginUser(registry.url, 'someone-else');
    const refused = await run(['dist-tag', 'add', 'com.studio.tools@1.0.0', 'stable'], stranger);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^Error: The registry refused to change com\.studio\.tools: .*\nHint: Only a maintainer of com\.studio\.tools may change it/,
    );

    const missing = await run(['dist-tag', 'add', 'com.studio.tools@9.9.9', 'beta']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Version '9.9.9' of com.studio.tools not found");
    const usage = await run(['dist-tag', 'add', 'com.studio.tools', 'beta']);
    expect(usage.code).toBe(2);
    expect((await run(['dist-tag', 'rm', 'com.studio.tools', 'latest'])).code).toBe(2);

    const removed = await run(['dist-tag', 'rm', 'com.studio.tools', 'beta']);
    expect(removed.code).toBe(0);
    expect(JSON.parse((await run(['dist-tag', 'ls', 'com.studio.tools', '--json'])).stdout).dist_tags).toEqual({
      latest: '2.0.0-beta.1',
    });
  });

  it('deprecate marks a range (add then skips it) and an empty message lifts it', async () => {
    const cwd = home.dir;
    const run = (args: string[]) => runPkg(args, { home, env: as(publisherToken), cwd });
    const deprecated = await run(['deprecate', 'com.studio.tools@^1.1.0', 'Use 2.x', '--json']);
    expect(deprecated.stderr).toBe('');
    expect(deprecated.code).toBe(0);
    expect(JSON.parse(deprecated.stdout)).toMatchObject({ versions: ['1.1.0'], deprecated: 'Use 2.x' });
    const document = (await (await fetch(`${registry.url}/com.studio.tools`)).json()) as {
      versions: Record<string, { deprecated?: string }>;
    };
    expect(document.versions['1.1.0']!.deprecated).toBe('Use 2.x');
    expect(document.versions['1.0.0']!.deprecated).toBeUndefined();
    expect((await run(['deprecate', 'com.studio.tools@^5.0.0', 'x'])).code).toBe(1);

    // `add` without a version now takes 1.0.0: the newest stable that is not deprecated.
    const project = await tmpUnityProject({ 'Packages/manifest.json': { dependencies: {}, scopedRegistries: scoped() } });
    const add = await pkg(['add', 'com.studio.tools', '--json'], project.dir);
    expect(add.json.added).toEqual([{ package: 'com.studio.tools', version: '1.0.0' }]);

    const lifted = await run(['deprecate', 'com.studio.tools@1.1.0', '']);
    expect(lifted.code).toBe(0);
    expect(lifted.stdout).toBe('1 version of com.studio.tools no longer deprecated: 1.1.0\n');
    const after = (await (await fetch(`${registry.url}/com.studio.tools`)).json()) as {
      versions: Record<string, { deprecated?: string }>;
    };
    expect(after.versions['1.1.0']!.deprecated).toBeUndefined();
  });
});
