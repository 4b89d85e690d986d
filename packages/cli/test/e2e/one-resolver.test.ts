import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishFixtures,
  startRegistry,
  tmpProject,
  tmpUnityProject,
  type FixtureVersion,
  type TestRegistry,
} from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';
import { PROJECT_GODOT, UPROJECT, godot, unity, unreal } from '../support/engine-fixtures.js';

// `add`, `update` and `install` decide with one resolver: what `add` writes, `install` accepts;
// a dry run shows conflicts; a hint suggests only what works. The built `pkg` against a real
// registry, on Unity, Godot and Unreal projects written on disk.

const FIXTURES: Record<string, FixtureVersion[]> = {
  'com.studio.core': [unity('1.0.0'), unity('1.1.0'), unity('2.0.0'), unity('3.0.0', {}, '2030.1')],
  'com.studio.input': [
    unity('1.0.0', { 'com.studio.core': '1.0.0' }),
    unity('1.1.0', { 'com.studio.core': '1.1.0' }),
    unity('2.0.0', { 'com.studio.core': '2.0.0' }),
    unity('3.0.0', { 'com.studio.core': '3.0.0' }),
  ],
  'com.studio.ui': [unity('1.0.0', { 'com.studio.core': '1.0.0' })],
  'com.studio.godot.core': [godot('core', '1.0.0'), godot('core', '1.1.0'), godot('core', '2.0.0')],
  'com.studio.godot.input': [godot('input', '1.1.0', { 'com.studio.godot.core': '1.1.0' })],
  'com.studio.unreal.core': [unreal('StudioCore', '1.0.0'), unreal('StudioCore', '1.1.0')],
  'com.studio.unreal.input': [unreal('StudioInput', '1.1.0', { 'com.studio.unreal.core': '1.1.0' })],
};

let registry: TestRegistry;
let home: Home;
let env: Record<string, string>;

beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'studio-publisher');
  await publishFixtures(registry.url, token, FIXTURES);
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

const unityManifest = (dependencies: Record<string, string>) =>
  JSON.stringify({ dependencies, scopedRegistries: [{ name: 'studio', url: registry.url, scopes: ['com.studio'] }] }, null, 2) +
  '\n';

describe('add can never write what install refuses', () => {
  it('Unity: adding core 1.0.0 under input 1.1.0 (which needs core 1.1.0) is refused with the conflict; the fix it names works, and install accepts it', async () => {
    const manifest = unityManifest({ 'com.studio.input': '1.1.0' });
    const project = await tmpUnityProject({ 'Packages/manifest.json': manifest });

    const refused = await pkg(['add', 'com.studio.core@1.0.0'], project.dir);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'Error: version conflict: com.studio.input requires com.studio.core@1.1.0\n' +
        'Hint: com.studio.input@1.1.0 needs com.studio.core@1.1.0 or newer within its major, and the manifest would list com.studio.core@1.0.0: add com.studio.core@1.1.0 or newer, or add another version of com.studio.input (`pkg info com.studio.input` lists them).\n',
    );
    expect(await project.read('Packages/manifest.json')).toBe(manifest);

    const fixed = await pkg(['add', 'com.studio.core@1.1.0'], project.dir);
    expect(fixed.stderr).toBe('');
    expect(fixed.code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({
      'com.studio.core': '1.1.0',
      'com.studio.input': '1.1.0',
    });
    const installed = await pkg(['install', '--json'], project.dir);
    expect(installed.code).toBe(0);
    expect(installed.json.success).toBe(true);
  });

  it('Godot: the same refusal, and nothing in the project changes', async () => {
    const project = await tmpProject('pkg-resolver-godot-', { 'project.godot': PROJECT_GODOT });
    expect((await pkg(['add', 'com.studio.godot.input@1.1.0'], project.dir)).code).toBe(0);
    const before = { json: await project.read('pkg.json'), lock: await project.read('pkg-lock.json') };

    const refused = await pkg(['add', 'com.studio.godot.core@1.0.0'], project.dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^Error: version conflict: com\.studio\.godot\.input requires com\.studio\.godot\.core@1\.1\.0\nHint: .*add com\.studio\.godot\.core@1\.1\.0 or newer/,
    );
    expect(await project.read('pkg.json')).toBe(before.json);
    expect(await project.read('pkg-lock.json')).toBe(before.lock);
    expect(await project.read('addons/core/core.gd')).toContain('1.1.0');

    expect((await pkg(['add', 'com.studio.godot.core@1.1.0'], project.dir)).code).toBe(0);
    expect((await pkg(['install'], project.dir)).code).toBe(0);
  });

  it('Unreal: the same refusal, and nothing in the project changes', async () => {
    const project = await tmpProject('pkg-resolver-unreal-', { 'Arena.uproject': UPROJECT });
    const added = await pkg(['add', 'com.studio.unreal.input@1.1.0'], project.dir);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(await readdir(project.path('Plugins'))).toEqual(['StudioCore', 'StudioInput']);
    const before = await project.read('pkg.json');

    const refused = await pkg(['add', 'com.studio.unreal.core@1.0.0', '--json'], project.dir);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({
      success: false,
      code: 'VERSION_CONFLICT',
      error: 'version conflict: com.studio.unreal.input requires com.studio.unreal.core@1.1.0',
    });
    expect(await project.read('pkg.json')).toBe(before);
    expect(await project.read('Plugins/StudioCore/Source/StudioCore/StudioCore.cpp')).toBe('// 1.1.0\n');
  });
});

describe('uninstall resolves what stays with the same resolver', () => {
  it('Godot: from the lock when it holds what stays, so no registry is asked; what only the removed package needed goes with it', async () => {
    const project = await tmpProject('pkg-resolver-godot-uninstall-', { 'project.godot': PROJECT_GODOT });
    expect((await pkg(['add', 'com.studio.godot.input@1.1.0'], project.dir)).code).toBe(0);
    expect((await readdir(project.path('addons'))).sort()).toEqual(['core', 'input']);

    // The registry is gone: removing needs none.
    const offline = { ...env, PKG_REGISTRY: 'http://127.0.0.1:9' };
    const removed = await runPkg(['uninstall', 'com.studio.godot.input', '--json'], { home, env: offline, cwd: project.dir });
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({
      removed: [{ package: 'com.studio.godot.input', version: '1.1.0' }],
      dependencies: { installed: [], removed: [{ package: 'com.studio.godot.core', version: '1.1.0' }] },
    });
    expect(JSON.parse(await project.read('pkg.json')).dependencies).toEqual({});
    expect(JSON.parse(await project.read('pkg-lock.json')).packages).toEqual({});
    expect(await project.read('project.godot')).toBe(PROJECT_GODOT);
  });

  it('Godot: a package listed in pkg.json stays when another that needed it goes', async () => {
    const project = await tmpProject('pkg-resolver-godot-uninstall-kept-', { 'project.godot': PROJECT_GODOT });
    expect((await pkg(['add', 'com.studio.godot.input@1.1.0', 'com.studio.godot.core@1.1.0'], project.dir)).code).toBe(0);
    const offline = { ...env, PKG_REGISTRY: 'http://127.0.0.1:9' };
    const removed = await runPkg(['uninstall', 'com.studio.godot.input', '--json'], { home, env: offline, cwd: project.dir });
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout).dependencies).toEqual({ installed: [], removed: [] });
    expect(JSON.parse(await project.read('pkg.json')).dependencies).toEqual({ 'com.studio.godot.core': '1.1.0' });
    expect(Object.keys(JSON.parse(await project.read('pkg-lock.json')).packages)).toEqual(['com.studio.godot.core']);
    expect(await readdir(project.path('addons'))).toEqual(['core']);
  });
});

describe('hints suggest only what works', () => {
  it('add: --latest is suggested when it resolves, and it does; not when it meets another conflict', async () => {
    const manifest = unityManifest({ 'com.studio.core': '1.1.0' });
    const project = await tmpUnityProject({ 'Packages/manifest.json': manifest });

    const refused = await pkg(['add', 'com.studio.input@2.0.0'], project.dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Error: version conflict: com.studio.input requires com.studio.core@2.0.0\n');
    expect(refused.stderr).toContain('run again with --latest to allow it');
    expect(await project.read('Packages/manifest.json')).toBe(manifest);

    // Input 3.0.0 needs core 3.0.0, which needs a newer editor: no flag helps, none is suggested.
    const tooNew = await pkg(['add', 'com.studio.input@3.0.0'], project.dir);
    expect(tooNew.code).toBe(1);
    expect(tooNew.stderr).toContain('com.studio.core@3.0.0 needs 2030.1 or newer: upgrade the editor');
    expect(tooNew.stderr).not.toContain('--latest');

    // With ui 1.0.0 (which needs core 1.x) listed too, --latest would break ui: not suggested.
    const withUi = unityManifest({ 'com.studio.core': '1.1.0', 'com.studio.ui': '1.0.0' });
    const other = await tmpUnityProject({ 'Packages/manifest.json': withUi });
    const blocked = await pkg(['add', 'com.studio.input@2.0.0'], other.dir);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).not.toContain('run again with --latest');
    expect(blocked.stderr).toContain('--latest would not help (version conflict: cannot update package)');
    expect((await pkg(['add', 'com.studio.input@2.0.0', '--latest'], other.dir)).code).toBe(1);
    expect(await other.read('Packages/manifest.json')).toBe(withUi);

    const latest = await pkg(['add', 'com.studio.input@2.0.0', '--latest', '--json'], project.dir);
    expect(latest.stderr).toBe('');
    expect(latest.code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({
      'com.studio.core': '2.0.0',
      'com.studio.input': '2.0.0',
    });
    expect((await pkg(['install'], project.dir)).code).toBe(0);
  });
});

describe('--dry-run previews conflicts', () => {
  it('update --latest --dry-run shows the plan and its conflict, exits 1 and changes nothing', async () => {
    const manifest = unityManifest({ 'com.studio.core': '1.1.0', 'com.studio.input': '1.1.0' });
    const project = await tmpUnityProject({ 'Packages/manifest.json': manifest });

    const preview = await pkg(['update', 'com.studio.core', '--latest', '--dry-run'], project.dir);
    expect(preview.stderr).toBe('');
    expect(preview.code).toBe(1);
    expect(preview.stdout).toContain('Would Update:\n  com.studio.core: 1.1.0 → 2.0.0');
    expect(preview.stdout).toContain('Conflicts (1): the update cannot be applied as it is');
    expect(await project.read('Packages/manifest.json')).toBe(manifest);

    const json = await pkg(['update', 'com.studio.core', '--latest', '--dry-run', '--json'], project.dir);
    expect(json.code).toBe(1);
    expect(json.json).toMatchObject({
      success: false,
      dry_run: true,
      updated: [{ package: 'com.studio.core', old_version: '1.1.0', new_version: '2.0.0' }],
      conflicts: [{ package: 'com.studio.core@2.0.0', requires: 'com.studio.core@1.1.0', reason: 'breaks-dependent' }],
    });

    const applied = await pkg(['update', 'com.studio.core', '--latest'], project.dir);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(/^Error: version conflict/);
  });

  it('Godot: update --dry-run never says (latest) while a newer major exists', async () => {
    const project = await tmpProject('pkg-resolver-godot-latest-', { 'project.godot': PROJECT_GODOT });
    expect((await pkg(['add', 'com.studio.godot.core@1.1.0'], project.dir)).code).toBe(0);
    const preview = await pkg(['update', '--dry-run'], project.dir);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain('com.studio.godot.core: 1.1.0 (2.0.0 is a new major version');
    expect(preview.stdout).not.toContain('(latest)');
  });
});
