import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishFixtures,
  removedAfterTest,
  startRegistry,
  tmpProject,
  tmpUnityProject,
  type FixtureVersion,
  type TestRegistry,
} from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';

// Perforce keeps a workspace's files read-only until `p4 edit`: the built `pkg` never changes
// one (it runs as root here, which access(2) would let write anything), names them all, and
// runs the checkoutCommand setting on them when there is one.
let registry: TestRegistry;
let home: Home;
let env: Record<string, string>;

const godotTool: FixtureVersion = {
  version: '1.0.0',
  manifest: { godot: '4.2' },
  files: [
    { path: 'addons/tool/plugin.cfg', content: '[plugin]\nname="Tool"\nscript="plugin.gd"\n' },
    { path: 'addons/tool/plugin.gd', content: '@tool\nextends EditorPlugin\n' },
  ],
};
const unrealTool: FixtureVersion = {
  version: '1.0.0',
  manifest: { unreal: '5.3' },
  files: [{ path: 'Tool.uplugin', content: JSON.stringify({ FileVersion: 3, VersionName: '1.0.0' }) }],
};

beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'perforce-user');
  await publishFixtures(registry.url, token, {
    'com.studio.unity-tool': [{ version: '1.0.0', manifest: { unity: '2021.3' }, files: [] }],
    'com.studio.godot-tool': [godotTool],
    'com.studio.unreal.tool': [unrealTool],
  });
  home = await makeHome();
  const temp = path.join(home.dir, 'tmp');
  await mkdir(temp);
  env = { PKG_REGISTRY: registry.url, TMPDIR: temp };
});
afterAll(async () => registry?.close());

const pkg = (args: string[], cwd: string) => runPkg(args, { home, env, cwd });
const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

const PROJECT_GODOT = 'config_version=5\n\n[application]\n\nconfig/features=PackedStringArray("4.2")\n';
const UPROJECT = '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.3"\n}';

describe('read-only project files (built binary, run as root)', () => {
  async function readOnlyUnity() {
    const project = await removedAfterTest(tmpUnityProject());
    const manifest = project.path('Packages/manifest.json');
    const before = await project.read('Packages/manifest.json');
    await chmod(manifest, 0o444);
    return { project, manifest, before };
  }

  it('Unity: a read-only manifest.json stops pkg add, naming it, and stays as it was', async () => {
    const { project, manifest, before } = await readOnlyUnity();
    const refused = await pkg(['add', 'com.studio.unity-tool'], project.dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `Error: Read-only files, not changed: ${manifest}\n` +
        'Hint: Nothing was changed. Check them out first (Perforce: p4 edit <files>), or let pkg do it: pkg config set checkoutCommand "p4 edit {files}".\n',
    );
    expect(await project.read('Packages/manifest.json')).toBe(before);
    expect(await modeOf(manifest)).toBe(0o444);
    const json = await pkg(['add', 'com.studio.unity-tool', '--json'], project.dir);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, code: 'FILES_READ_ONLY' });
  });

  it('Unity: a checkoutCommand that fails stops pkg add too, saying what it said', async () => {
    const { project, before } = await readOnlyUnity();
    const own = await makeHome();
    const run = (args: string[]) => runPkg(args, { home: own, env, cwd: project.dir });
    expect((await run(['config', 'set', 'checkoutCommand', 'echo "no such changelist" >&2; exit 3'])).code).toBe(0);
    const failed = await run(['add', 'com.studio.unity-tool']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^Error: The checkoutCommand setting failed \(exit 3\): echo .*\nHint: Nothing was changed\. It said: no such changelist\n$/,
    );
    expect(await project.read('Packages/manifest.json')).toBe(before);
  });

  it('Unity: the checkoutCommand makes the manifest writable, pkg add goes on, and the file keeps the mode it got', async () => {
    const { project, manifest } = await readOnlyUnity();
    const own = await makeHome();
    const run = (args: string[]) => runPkg(args, { home: own, env, cwd: project.dir });
    // As `p4 edit` does: the files become writable (0640 here), and the rewrite keeps that mode.
    expect((await run(['config', 'set', 'checkoutCommand', 'chmod 640 {files}'])).code).toBe(0);
    const added = await run(['add', 'com.studio.unity-tool']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(JSON.parse(await project.read('Packages/manifest.json')).dependencies).toEqual({ 'com.studio.unity-tool': '1.0.0' });
    expect(await modeOf(manifest)).toBe(0o640);
  });

  it('Godot: names every read-only file it would change (project.godot, pkg.json, pkg-lock.json) and installs nothing', async () => {
    const project = await removedAfterTest(
      tmpProject('pkg-godot-read-only-', { 'project.godot': PROJECT_GODOT, 'pkg.json': { dependencies: {} } }),
    );
    await chmod(project.path('project.godot'), 0o444);
    await chmod(project.path('pkg.json'), 0o444);
    const refused = await pkg(['add', 'com.studio.godot-tool'], project.dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      `Error: Read-only files, not changed: ${project.path('project.godot')}, ${project.path('pkg.json')}\n`,
    );
    expect((await readdir(project.dir)).sort()).toEqual(['pkg.json', 'project.godot']);
    expect(await project.read('project.godot')).toBe(PROJECT_GODOT);

    await chmod(project.path('project.godot'), 0o644);
    await chmod(project.path('pkg.json'), 0o644);
    expect((await pkg(['add', 'com.studio.godot-tool'], project.dir)).code).toBe(0);
    // The lock, checked in and read-only, stops the next change (here: removing the package).
    await chmod(project.path('pkg-lock.json'), 0o444);
    const lockBefore = await project.read('pkg-lock.json');
    const uninstall = await pkg(['uninstall', 'com.studio.godot-tool'], project.dir);
    expect(uninstall.code).toBe(1);
    expect(uninstall.stderr).toMatch(`Error: Read-only files, not changed: ${project.path('pkg-lock.json')}\n`);
    expect(await project.read('pkg-lock.json')).toBe(lockBefore);
    expect(await project.read('addons/tool/plugin.gd')).toBe('@tool\nextends EditorPlugin\n');
  });

  it('Unreal: a read-only .uproject stops pkg add, unchanged', async () => {
    const project = await removedAfterTest(tmpProject('pkg-unreal-read-only-', { 'Game.uproject': UPROJECT }));
    await chmod(project.path('Game.uproject'), 0o444);
    const refused = await pkg(['add', 'com.studio.unreal.tool'], project.dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(`Error: Read-only files, not changed: ${project.path('Game.uproject')}\n`);
    expect(await project.read('Game.uproject')).toBe(UPROJECT);
    expect((await readdir(project.dir)).sort()).toEqual(['Game.uproject']);
  });
});
