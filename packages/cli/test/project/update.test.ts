import * as nodeFs from 'node:fs/promises';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectVersionTxt, type TestRegistry } from '@pkg/testkit';
import type { FileSystem } from '../../src/deps.js';
import { run, testDeps } from '../support/deps.js';
import { backups, fixtureRegistry, projectWith, unityJson, removeProjects } from './fixtures.js';

const SEP = '─'.repeat(40);
let registry: TestRegistry;
beforeAll(async () => {
  registry = await fixtureRegistry();
});
afterAll(async () => {
  await registry?.close();
  await removeProjects();
});

const ours = () => ({ name: '127.0.0.1', url: registry.url, scopes: ['com.fixture'] });

describe('pkg update', () => {
  it('updates within the major, prints the spec’s lines and keeps a backup', async () => {
    const manifest = unityJson({
      dependencies: { 'com.fixture.a': '1.0.0', 'com.unity.modules.ui': '1.0.0', 'com.fixture.core': '1.4.0' },
      scopedRegistries: [ours()],
    });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stdout, stderr } = await run(deps, ['update']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const [backup] = await backups(deps);
    const backupPath = path.join(deps.tmpdir, backup!);
    expect(stdout).toBe(
      [
        'Package Updates',
        SEP,
        'Engine: Unity 2022.3.10f1',
        `Project: ${project.dir}`,
        `Registry: ${registry.url}`,
        '',
        'Updated Packages:',
        '  com.fixture.a: 1.0.0 → 1.2.0',
        '',
        'No Updates Available:',
        '  com.unity.modules.ui: 1.0.0 (built-in)',
        '  com.fixture.core: 1.4.0 (latest)',
        '',
        'Notes:',
        '  com.fixture.a 1.3.0 needs 2023.1 or newer',
        '',
        `Backup: ${backupPath}`,
        '1 package updated successfully',
        '',
      ].join('\n'),
    );
    expect(await project.read('Packages/manifest.json')).toBe(
      manifest.replace('"com.fixture.a": "1.0.0"', '"com.fixture.a": "1.2.0"'),
    );
    expect(await readFile(path.join(backupPath, 'Packages', 'manifest.json'), 'utf8')).toBe(manifest);
    expect(backup).toMatch(/^pkg-backup-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
  });

  it('marks (latest) only when nothing newer exists, and says in one line what is newer', async () => {
    const { deps } = await projectWith(registry, {
      'Packages/manifest.json': {
        dependencies: { 'com.fixture.core': '1.4.0', 'com.fixture.y': '1.0.0', 'com.fixture.a': '1.2.0' },
      },
    });
    const { code, stdout } = await run(deps, ['update', '--dry-run']);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines).toContain('  com.fixture.core: 1.4.0 (latest)');
    expect(lines).toContain('  com.fixture.y: 1.0.0 (2.0.0 is a new major version: pkg update com.fixture.y --latest)');
    expect(lines.filter((line) => line.includes('com.fixture.y'))).toHaveLength(1);
    expect(lines).toContain(
      '  com.fixture.a: 1.2.0 (2.1.0 is a new major version: pkg update com.fixture.a --latest; 1.3.0 needs 2023.1 or newer)',
    );
    expect(stdout).not.toContain('Notes:');
    const json = JSON.parse((await run(deps, ['update', '--dry-run', '--json'])).stdout);
    expect(json.unchanged.map((u: { status: string }) => u.status)).toEqual(['latest', 'newer-major', 'newer-major']);
  });

  it('prints the update report with --json', async () => {
    const { project, deps } = await projectWith(registry, {
      'Packages/manifest.json': {
        dependencies: { 'com.fixture.a': '1.0.0', 'com.fixture.y': '1.0.0' },
        scopedRegistries: [{ name: '127.0.0.1', url: registry.url, scopes: ['com.fixture.a', 'com.fixture.y'] }],
      },
    });
    const { code, stdout } = await run(deps, ['update', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toEqual({
      success: true,
      engine: 'unity',
      engine_version: '2022.3.10f1',
      project: project.dir,
      registry: registry.url,
      registries: [registry.url],
      updated: [
        {
          package: 'com.fixture.a',
          old_version: '1.0.0',
          new_version: '1.2.0',
          needs_newer_engine: { version: '1.3.0', requires: '2023.1' },
        },
      ],
      unchanged: [{ package: 'com.fixture.y', version: '1.0.0', status: 'newer-major', newer_major: '2.0.0' }],
      scopes_added: [],
      backup_path: path.join(deps.tmpdir, (await backups(deps))[0]!),
      message: '1 package updated successfully',
    });
    expect(JSON.parse(await project.read('Packages/manifest.json'))).toEqual({
      dependencies: { 'com.fixture.a': '1.2.0', 'com.fixture.y': '1.0.0' },
      scopedRegistries: [{ name: '127.0.0.1', url: registry.url, scopes: ['com.fixture.a', 'com.fixture.y'] }],
    });
  });

  it('--dry-run prints the preview and changes nothing on disk', async () => {
    const manifest = unityJson({
      dependencies: { 'com.fixture.a': '1.0.0', 'com.fixture.core': '1.4.0' },
      scopedRegistries: [ours()],
    });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const before = await readdir(project.dir, { recursive: true });
    const { code, stdout } = await run(deps, ['update', '--dry-run']);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'Update Preview',
        SEP,
        'Engine: Unity 2022.3.10f1',
        `Project: ${project.dir}`,
        `Registry: ${registry.url}`,
        '',
        'Would Update:',
        '  com.fixture.a: 1.0.0 → 1.2.0',
        '',
        'Would Not Update:',
        '  com.fixture.core: 1.4.0 (latest)',
        '',
        'Notes:',
        '  com.fixture.a 1.3.0 needs 2023.1 or newer',
        '',
        '1 package would be updated',
        'Run without --dry-run to apply these updates.',
        '',
      ].join('\n'),
    );
    expect(await project.read('Packages/manifest.json')).toBe(manifest);
    expect(await readdir(project.dir, { recursive: true })).toEqual(before);
    expect(await backups(deps)).toEqual([]);
  });

  it('--dry-run --json prints the report with dry_run and no backup', async () => {
    const manifest = unityJson({ dependencies: { 'com.fixture.a': '1.0.0' }, scopedRegistries: [ours()] });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stdout } = await run(deps, ['update', '--dry-run', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      success: true,
      dry_run: true,
      backup_path: null,
      updated: [{ package: 'com.fixture.a', old_version: '1.0.0', new_version: '1.2.0' }],
      message: '1 package would be updated',
    });
    expect(await project.read('Packages/manifest.json')).toBe(manifest);
    expect(await backups(deps)).toEqual([]);
  });

  it('--latest crosses majors', async () => {
    const { project, deps } = await projectWith(registry, {
      'Packages/manifest.json': { dependencies: { 'com.fixture.a': '1.0.0' } },
    });
    expect((await run(deps, ['update', '--latest'])).code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({ 'com.fixture.a': '2.1.0' });
  });

  it('takes the editor-incompatible version once the editor is new enough', async () => {
    const { project, deps } = await projectWith(registry, {
      'ProjectSettings/ProjectVersion.txt': projectVersionTxt('2023.1.0f1'),
      'Packages/manifest.json': { dependencies: { 'com.fixture.a': '1.0.0' } },
    });
    expect((await run(deps, ['update'])).code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({ 'com.fixture.a': '1.3.0' });
  });

  it('warns and skips the compatibility check when the editor version is unreadable', async () => {
    const { project, deps } = await projectWith(registry, {
      'ProjectSettings/ProjectVersion.txt': 'm_EditorVersion: 2022.3\n',
      'Packages/manifest.json': { dependencies: { 'com.fixture.a': '1.0.0' } },
    });
    const { code, stderr } = await run(deps, ['update']);
    expect(code).toBe(0);
    expect(stderr).toBe("Warning: unrecognised editor version '2022.3': editor compatibility is not checked\n");
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({ 'com.fixture.a': '1.3.0' });
  });

  it('raises the dependencies a named package needs, down the chain', async () => {
    const { project, deps } = await projectWith(registry, {
      'Packages/manifest.json': {
        dependencies: {
          'com.fixture.a': '1.0.0',
          'com.fixture.app': '1.0.0',
          'com.fixture.core': '1.0.0',
          'com.fixture.lib': '1.0.0',
        },
      },
    });
    const { code, stdout } = await run(deps, ['update', 'com.fixture.app', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).updated).toEqual([
      { package: 'com.fixture.app', old_version: '1.0.0', new_version: '1.1.0' },
      { package: 'com.fixture.core', old_version: '1.0.0', new_version: '1.1.0', required_by: 'com.fixture.lib@1.2.0' },
      { package: 'com.fixture.lib', old_version: '1.0.0', new_version: '1.2.0', required_by: 'com.fixture.app@1.1.0' },
    ]);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({
      'com.fixture.a': '1.0.0',
      'com.fixture.app': '1.1.0',
      'com.fixture.core': '1.1.0',
      'com.fixture.lib': '1.2.0',
    });
  });

  it('reports built-in packages and packages the registry does not have, without failing', async () => {
    const { deps } = await projectWith(registry, {
      'Packages/manifest.json': {
        dependencies: { 'com.unity.modules.ui': '1.0.0', 'com.unity.textmeshpro': '3.0.6', 'com.vendor.local': 'file:../local' },
      },
    });
    const { code, stdout } = await run(deps, ['update', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      updated: [],
      unchanged: [
        { package: 'com.unity.modules.ui', version: '1.0.0', status: 'built-in' },
        { package: 'com.unity.textmeshpro', version: '3.0.6', status: 'unity-registry' },
        { package: 'com.vendor.local', version: 'file:../local', status: 'external' },
      ],
      backup_path: null,
      message: 'Nothing to update: no package has a newer version it can take',
    });
    expect(await backups(deps)).toEqual([]);
  });

  it('--save=false fetches and verifies into the cache without changing the manifest', async () => {
    const manifest = unityJson({ dependencies: { 'com.fixture.a': '1.0.0' }, scopedRegistries: [ours()] });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stdout } = await run(deps, ['update', '--save=false']);
    expect(code).toBe(0);
    expect(stdout).toContain('Fetched (not saved):\n  com.fixture.a: 1.0.0 → 1.2.0\n');
    expect(stdout).toContain(
      `1 package fetched into the cache; ${path.join('Packages', 'manifest.json')} not changed (--save=false)\n`,
    );
    expect(await project.read('Packages/manifest.json')).toBe(manifest);
    const cached = await readFile(path.join(deps.env.PKG_CACHE_DIR!, 'tarballs', 'com.fixture.a', '1.2.0.tgz'));
    const served = await fetch(`${registry.url}/com.fixture.a/-/com.fixture.a-1.2.0.tgz`);
    expect(Buffer.compare(cached, Buffer.from(await served.arrayBuffer()))).toBe(0);
    expect(await backups(deps)).toEqual([]);
  });
});

describe('pkg update keeps the manifest’s formatting byte for byte', () => {
  const value = () => ({
    dependencies: { 'com.fixture.a': '1.0.0', 'com.unity.modules.ui': '1.0.0' },
    scopedRegistries: [ours()],
    testables: ['com.fixture.a'],
  });
  it.each([
    ['2 spaces', '  ', '\n', true],
    ['4 spaces', '    ', '\n', true],
    ['CRLF', '  ', '\r\n', true],
    ['no final newline', '  ', '\n', false],
    ['tabs, CRLF, no final newline', '\t', '\r\n', false],
  ])('%s', async (_, indent, eol, finalNewline) => {
    const write = (v: unknown) => {
      const text = JSON.stringify(v, null, indent).split('\n').join(eol);
      return finalNewline ? text + eol : text;
    };
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': write(value()) });
    expect((await run(deps, ['update'])).code).toBe(0);
    const expected = value();
    expected.dependencies['com.fixture.a'] = '1.2.0';
    expect(await project.read('Packages/manifest.json')).toBe(write(expected));
  });

  it('adds a new scoped registry in the file’s own style (pkg add)', async () => {
    const text = '{\r\n    "dependencies": {\r\n        "com.fixture.a": "1.0.0"\r\n    }\r\n}';
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': text });
    expect((await run(deps, ['add', 'com.fixture.b'])).code).toBe(0);
    expect(await project.read('Packages/manifest.json')).toBe(
      `{\r\n    "dependencies": {\r\n        "com.fixture.a": "1.0.0",\r\n        "com.fixture.b": "1.0.0"\r\n    },\r\n    "scopedRegistries": [\r\n        {\r\n            "name": "${new URL(registry.url).host}",\r\n            "url": "${registry.url}",\r\n            "scopes": [\r\n                "com.fixture.b"\r\n            ]\r\n        }\r\n    ]\r\n}`,
    );
  });
});

describe('pkg update errors', () => {
  it('version conflict: <package> requires <other>@<version>, and nothing changes', async () => {
    const manifest = unityJson({
      dependencies: { 'com.fixture.x': '1.0.0', 'com.fixture.y': '1.0.0' },
      scopedRegistries: [ours()],
    });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stdout, stderr } = await run(deps, ['update', 'com.fixture.x']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'Error: version conflict: com.fixture.x requires com.fixture.y@2.0.0\n' +
        'Hint: com.fixture.y@2.0.0 is a new major version of com.fixture.y: run again with --latest to allow it, or keep com.fixture.x at its current version (update the other packages by name).\n',
    );
    expect(await project.read('Packages/manifest.json')).toBe(manifest);
    expect(await backups(deps)).toEqual([]);
    expect((await run(deps, ['update', 'com.fixture.x', '--latest'])).code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({
      'com.fixture.x': '1.1.0',
      'com.fixture.y': '2.0.0',
    });
  });

  it('version conflict: cannot update package, when a new major breaks a dependent', async () => {
    const manifest = unityJson({
      dependencies: { 'com.fixture.x': '1.0.0', 'com.fixture.y': '1.0.0' },
      scopedRegistries: [ours()],
    });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    const { code, stdout } = await run(deps, ['update', 'com.fixture.y', '--latest', '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual({
      success: false,
      error: 'version conflict: cannot update package',
      code: 'VERSION_CONFLICT',
      hint: 'com.fixture.y@2.0.0 is a new major version, but com.fixture.x@1.0.0 requires com.fixture.y@1.0.0: update the dependent package first.',
    });
    expect(await project.read('Packages/manifest.json')).toBe(manifest);
  });

  it("package '<name>' not found in project", async () => {
    const { deps } = await projectWith(registry, { 'Packages/manifest.json': { dependencies: { 'com.fixture.a': '1.0.0' } } });
    const { code, stderr } = await run(deps, ['update', 'com.fixture.nope']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Error: package 'com.fixture.nope' not found in project\nHint: /);
  });

  it('no supported engine detected. Please specify --engine <engine>', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-not-a-project-'));
    const deps = await testDeps({ cwd: dir, env: { PKG_REGISTRY: registry.url } });
    const { code, stderr } = await run(deps, ['update']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Error: no supported engine detected\. Please specify --engine <engine>\nHint: /);
  });

  it('--engine unity works where detection does not, and an unknown engine is wrong usage', async () => {
    const { project, deps } = await projectWith(registry, {
      'Assets/': null,
      'Packages/manifest.json': { dependencies: { 'com.fixture.a': '1.0.0' } },
    });
    expect((await run(deps, ['update'])).code).toBe(1);
    expect((await run(deps, ['update', '--engine', 'unity'])).code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({ 'com.fixture.a': '1.2.0' });
    const unknown = await run(deps, ['update', '--engine', 'cryengine']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("Error: Unknown engine 'cryengine'\nHint: Supported engines: unity, godot, unreal\n");
  });

  it('failed to fetch package information, when the registry cannot be reached', async () => {
    const { deps } = await projectWith(registry, {
      'Packages/manifest.json': {
        dependencies: { 'com.fixture.a': '1.0.0' },
        scopedRegistries: [{ name: 'down', url: 'http://127.0.0.1:9', scopes: ['com.fixture'] }],
      },
    });
    const { code, stderr } = await run(deps, ['update']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Error: failed to fetch package information\nHint: com\.fixture\.a: Failed to connect to registry/);
  });

  it('restores the backup automatically when writing the manifest fails, and says so', async () => {
    const manifest = unityJson({ dependencies: { 'com.fixture.a': '1.0.0' }, scopedRegistries: [ours()] });
    let failed = false;
    // The new manifest lands on disk, then the step after it fails: the backup must come back.
    const failingFs: FileSystem = {
      ...nodeFs,
      rename: (async (from: string, to: string) => {
        await nodeFs.rename(from, to);
        if (!failed && String(to).endsWith(`${path.sep}manifest.json`)) {
          failed = true;
          throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
        }
      }) as FileSystem['rename'],
    };
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest }, { fs: failingFs });
    const { code, stdout, stderr } = await run(deps, ['update']);
    expect(failed).toBe(true);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const backup = path.join(deps.tmpdir, (await backups(deps))[0]!);
    expect(stderr).toBe(
      `Error: Failed to write ${path.join('Packages', 'manifest.json')}: EIO: i/o error, rename. The backup was restored automatically\n` +
        `Hint: Nothing was changed. The backup stays in ${backup}.\n`,
    );
    expect(await project.read('Packages/manifest.json')).toBe(manifest);
    expect(await readFile(path.join(backup, 'Packages', 'manifest.json'), 'utf8')).toBe(manifest);
  });

  it('refuses an invalid manifest, naming the problem', async () => {
    const { deps } = await projectWith(registry, { 'Packages/manifest.json': '{"dependencies": ["com.fixture.a"]}' });
    const { code, stderr } = await run(deps, ['update']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Error: Packages.manifest\.json is invalid: "dependencies" is not an object\n/);
  });

  it('takes `--save <package>` as --save followed by the package', async () => {
    const { project, deps } = await projectWith(registry, {
      'Packages/manifest.json': { dependencies: { 'com.fixture.a': '1.0.0', 'com.fixture.core': '1.0.0' } },
    });
    const { code, stdout } = await run(deps, ['update', '--save', 'com.fixture.core', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).updated).toEqual([{ package: 'com.fixture.core', old_version: '1.0.0', new_version: '1.4.0' }]);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({
      'com.fixture.a': '1.0.0',
      'com.fixture.core': '1.4.0',
    });
  });

  it('refuses --save with a value other than true or false as wrong usage', async () => {
    const { deps } = await projectWith(registry, {});
    const { code, stderr } = await run(deps, ['update', '--save=maybe']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^Error: Invalid --save value 'maybe'/);
  });
});

describe('manifest backups', () => {
  it("keeps the project's newest ten (setting backupsKept), each saying its project, and leaves other projects' and other folders alone", async () => {
    const manifest = unityJson({ dependencies: { 'com.fixture.a': '1.0.0' }, scopedRegistries: [ours()] });
    const { project, deps } = await projectWith(registry, { 'Packages/manifest.json': manifest });
    await nodeFs.mkdir(deps.tmpdir, { recursive: true });
    const stamp = (day: number) => `pkg-backup-2020-01-${String(day).padStart(2, '0')}T00-00-00-000Z`;
    const old = Array.from({ length: 12 }, (_, i) => stamp(i + 1));
    const others = [stamp(20), stamp(21)];
    const info = (dir: string) => JSON.stringify({ project: dir, created: '2020-01-01T00:00:00.000Z', files: [] });
    for (const name of old) {
      await nodeFs.mkdir(path.join(deps.tmpdir, name));
      await nodeFs.writeFile(path.join(deps.tmpdir, name, 'pkg-backup.json'), info(project.dir));
    }
    for (const name of others) {
      await nodeFs.mkdir(path.join(deps.tmpdir, name));
      await nodeFs.writeFile(path.join(deps.tmpdir, name, 'pkg-backup.json'), info('/elsewhere/OtherGame'));
    }
    // A backup of an older pkg, which does not say its project: never counted, never removed.
    const legacy = stamp(25);
    for (const name of [legacy, 'pkg-backup-notes', 'unrelated']) await nodeFs.mkdir(path.join(deps.tmpdir, name));
    expect((await run(deps, ['update'])).code).toBe(0);
    const all = await backups(deps);
    const ours_ = all.filter((name) => !others.includes(name) && name !== legacy && name !== 'pkg-backup-notes').sort();
    expect(ours_).toHaveLength(10);
    expect(ours_.slice(0, 9)).toEqual(old.slice(3));
    const newest = ours_[9]!;
    expect(newest).not.toMatch(/^pkg-backup-2020/);
    expect(JSON.parse(await nodeFs.readFile(path.join(deps.tmpdir, newest, 'pkg-backup.json'), 'utf8'))).toEqual({
      project: project.dir,
      created: expect.any(String),
      files: ['Packages/manifest.json'],
    });
    expect((await readdir(path.join(deps.tmpdir, newest))).sort()).toEqual(['Packages', 'pkg-backup.json']);
    expect(await readdir(deps.tmpdir)).toEqual(expect.arrayContaining([...others, legacy, 'pkg-backup-notes', 'unrelated']));
  });
});
