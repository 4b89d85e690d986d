import { cp, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishFixtures, startRegistry, tmpProject, type FixtureVersion, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';

// The built `pkg` against a real registry, on Godot and Unreal projects written as the engines write them.

/** `project.godot` as Godot 4.2 writes it for a new project. */
const PROJECT_GODOT = `; Engine configuration file.
; It's best edited using the editor UI and not directly,
; since the parameters that go here are not all obvious.
;
; Format:
;   [section] ; section goes between []
;   param=value ; assign values to parameters

config_version=5

[application]

config/name="Dungeon"
run/main_scene="res://main.tscn"
config/features=PackedStringArray("4.2", "Forward Plus")
config/icon="res://icon.svg"

[rendering]

textures/canvas_textures/default_texture_filter=0
`;

const PLUGIN_CFG = (version: string) => `[plugin]

name="Dialogue"
description="Branching dialogue for Godot"
author="Fixture"
version="${version}"
script="plugin.gd"
`;

const PLUGIN_GD = (version: string) => `@tool
extends EditorPlugin

# dialogue ${version}
func _enter_tree() -> void:
\tadd_custom_type("Dialogue", "Node", preload("dialogue.gd"), null)


func _exit_tree() -> void:
\tremove_custom_type("Dialogue")
`;

function godotDialog(version: string, godot: string, extra: Record<string, unknown> = {}): FixtureVersion {
  return {
    version,
    manifest: { godot, ...extra },
    files: [
      { path: 'README.md', content: '# Dialogue\n' },
      { path: 'addons/dialogue/plugin.cfg', content: PLUGIN_CFG(version) },
      { path: 'addons/dialogue/plugin.gd', content: PLUGIN_GD(version) },
      { path: 'addons/dialogue/dialogue.gd', content: `extends Node\nconst VERSION = "${version}"\n` },
    ],
  };
}

/** A `.uproject` as Unreal Engine 5.3 writes it: tabs, no final newline. */
const uproject = (association: string) =>
  [
    '{',
    '\t"FileVersion": 3,',
    `\t"EngineAssociation": "${association}",`,
    '\t"Category": "",',
    '\t"Description": "",',
    '\t"Modules": [',
    '\t\t{',
    '\t\t\t"Name": "Arena",',
    '\t\t\t"Type": "Runtime",',
    '\t\t\t"LoadingPhase": "Default"',
    '\t\t}',
    '\t],',
    '\t"Plugins": [',
    '\t\t{',
    '\t\t\t"Name": "ModelingToolsEditorMode",',
    '\t\t\t"Enabled": true,',
    '\t\t\t"TargetAllowList": [',
    '\t\t\t\t"Editor"',
    '\t\t\t]',
    '\t\t}',
    '\t]',
    '}',
  ].join('\r\n');

const uplugin = (version: string) =>
  JSON.stringify(
    {
      FileVersion: 3,
      Version: Number(version.split('.')[0]),
      VersionName: version,
      FriendlyName: 'Barks',
      Description: 'Combat barks',
      Category: 'Audio',
      CreatedBy: 'Fixture',
      CanContainContent: true,
      Installed: false,
      Modules: [{ Name: 'Barks', Type: 'Runtime', LoadingPhase: 'Default' }],
    },
    null,
    '\t',
  );

function unrealBarks(version: string, fields: Record<string, unknown>): FixtureVersion {
  return {
    version,
    manifest: fields,
    files: [
      { path: 'Barks.uplugin', content: uplugin(version) },
      { path: 'Source/Barks/Barks.Build.cs', content: 'using UnrealBuildTool;\npublic class Barks : ModuleRules {}\n' },
      { path: 'Source/Barks/Private/Barks.cpp', content: `// ${version}\n#include "Modules/ModuleManager.h"\n` },
      { path: 'Resources/Icon128.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2]) },
    ],
  };
}

const FIXTURES: Record<string, FixtureVersion[]> = {
  'com.fixture.godot.utils': [
    { version: '1.0.0', manifest: { godot: '4.0' }, files: [{ path: 'addons/utils/utils.gd', content: 'extends Object\n' }] },
    { version: '1.1.0', manifest: { godot: '4.0' }, files: [{ path: 'addons/utils/utils.gd', content: 'extends RefCounted\n' }] },
  ],
  'com.fixture.godot.dialogue': [
    godotDialog('1.0.0', '4.1'),
    godotDialog('1.1.0', '4.2', { dependencies: { 'com.fixture.godot.utils': '1.0.0' } }),
    godotDialog('1.2.0', '4.3'),
    godotDialog('2.0.0', '4.2'),
  ],
  'com.fixture.godot.future': [godotDialog('1.0.0', '4.4'), godotDialog('1.1.0', '4.5')],
  'com.fixture.unreal.barks': [
    unrealBarks('1.0.0', { unreal: '5.2' }),
    unrealBarks('1.1.0', { unreal: '5.3' }),
    unrealBarks('2.0.0', { unreal: '5.3', unrealMax: '5.3' }),
    unrealBarks('2.1.0', { unreal: '5.4', unrealMax: '5.4' }),
  ],
};

let registry: TestRegistry;
let home: Home;
let temp: string;
let env: Record<string, string>;

beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'engine-publisher');
  await publishFixtures(registry.url, token, FIXTURES);
  home = await makeHome();
  temp = path.join(home.dir, 'tmp');
  await mkdir(temp);
  env = { PKG_REGISTRY: registry.url, TMPDIR: temp };
});
afterAll(async () => registry?.close());

const sha256 = (data: string | Buffer) => `sha256-${createHash('sha256').update(data).digest('base64')}`;

async function pkg(args: string[], cwd: string) {
  const result = await runPkg(args, { home, env, cwd });
  return { ...result, json: result.stdout.startsWith('{') ? JSON.parse(result.stdout) : undefined };
}

/** The files version control would hold: the project file, pkg.json and pkg-lock.json. */
async function freshCopy(from: string, files: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pkg-fresh-copy-'));
  for (const f of files) await cp(path.join(from, f), path.join(dir, f));
  return dir;
}

describe('a Godot 4 project (built binary)', () => {
  it('adds, updates within and across majors, refuses what the engine cannot use, guards hand edits, installs from the lock and uninstalls byte for byte', async () => {
    const project = await tmpProject('pkg-godot-project-', {
      'project.godot': PROJECT_GODOT,
      'main.tscn': '[gd_scene format=3]\n\n[node name="Main" type="Node2D"]\n',
      'icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
      'scenes/': '',
    });
    // From a subfolder: the project is found by walking up.
    const cwd = project.path('scenes');

    const added = await pkg(['add', 'com.fixture.godot.dialogue@1.0.0'], cwd);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Engine: Godot 4.2');
    expect(added.stdout).toContain('Added:\n  com.fixture.godot.dialogue@1.0.0');
    expect(await project.read('addons/dialogue/plugin.cfg')).toBe(PLUGIN_CFG('1.0.0'));
    expect(await project.read('addons/dialogue/plugin.gd')).toBe(PLUGIN_GD('1.0.0'));
    // package.json and the readme stay in the tarball: the package's folder is all Godot reads.
    expect((await readdir(project.dir)).sort()).toEqual(
      ['addons', 'icon.svg', 'main.tscn', 'pkg-lock.json', 'pkg.json', 'project.godot', 'scenes'].sort(),
    );
    expect(await project.read('project.godot')).toBe(
      PROJECT_GODOT.replace(
        '\n[rendering]',
        '\n[editor_plugins]\n\nenabled=PackedStringArray("res://addons/dialogue/plugin.cfg")\n\n[rendering]',
      ),
    );
    expect(JSON.parse(await project.read('pkg.json'))).toEqual({ dependencies: { 'com.fixture.godot.dialogue': '1.0.0' } });
    const lock = JSON.parse(await project.read('pkg-lock.json'));
    expect(lock).toEqual({
      lockfileVersion: 1,
      packages: {
        'com.fixture.godot.dialogue': {
          version: '1.0.0',
          resolved: `${registry.url}/com.fixture.godot.dialogue/-/com.fixture.godot.dialogue-1.0.0.tgz`,
          integrity: expect.stringMatching(/^sha512-/),
          folder: 'addons/dialogue',
          files: {
            'dialogue.gd': sha256('extends Node\nconst VERSION = "1.0.0"\n'),
            'plugin.cfg': sha256(PLUGIN_CFG('1.0.0')),
            'plugin.gd': sha256(PLUGIN_GD('1.0.0')),
          },
          projectEdits: [
            {
              file: 'project.godot',
              kind: 'godot-editor-plugin',
              value: 'res://addons/dialogue/plugin.cfg',
              created: 'section',
            },
          ],
        },
      },
      createdFolders: ['addons'],
    });

    // Godot writes these beside the files it imports; they are not local edits, and the uid stays.
    await writeFile(project.path('addons/dialogue/plugin.gd.uid'), 'uid://b1x2y3z4\n');
    await writeFile(project.path('addons/dialogue/dialogue.gd.import'), '[remap]\n');

    const preview = await pkg(['update', '--dry-run', '--json'], cwd);
    expect(preview.code).toBe(0);
    expect(preview.json).toMatchObject({
      engine: 'godot',
      engine_version: '4.2',
      dry_run: true,
      updated: [
        {
          package: 'com.fixture.godot.dialogue',
          old_version: '1.0.0',
          new_version: '1.1.0',
          needs_newer_engine: { version: '1.2.0', requires: 'Godot 4.3' },
        },
      ],
    });
    expect(JSON.parse(await project.read('pkg-lock.json'))).toEqual(lock);

    const within = await pkg(['update'], cwd);
    expect(within.stderr).toBe('');
    expect(within.code).toBe(0);
    expect(within.stdout).toContain('com.fixture.godot.dialogue: 1.0.0 → 1.1.0');
    // The dependency is said: its folder appears too.
    expect(within.stdout).toContain('\nDependencies Installed:\n  com.fixture.godot.utils@1.0.0\n');
    const listedWithDependency = await pkg(['list', '--all', '--json'], cwd);
    expect(
      listedWithDependency.json.packages.map((p: { package: string; requested: string | null }) => [p.package, p.requested]),
    ).toEqual([
      ['com.fixture.godot.dialogue', '1.1.0'],
      ['com.fixture.godot.utils', null],
    ]);
    const notMine = await pkg(['uninstall', 'com.fixture.godot.utils'], cwd);
    expect(notMine.code).toBe(1);
    expect(notMine.stderr).toMatch(
      /^Error: package 'com\.fixture\.godot\.utils' is installed only because other packages need it\n/,
    );
    expect((await pkg(['list', '--all'], cwd)).stdout).toMatch(
      /\ncom\.fixture\.godot\.utils +\(dependency\) +1\.0\.0 +1\.1\.0 +com\.fixture\.godot\.dialogue@1\.1\.0\n/,
    );
    expect(await project.read('addons/dialogue/plugin.cfg')).toBe(PLUGIN_CFG('1.1.0'));
    expect(await project.read('addons/dialogue/plugin.gd.uid')).toBe('uid://b1x2y3z4\n');
    await expect(project.read('addons/dialogue/dialogue.gd.import')).rejects.toThrow(/ENOENT/);
    // The dependency 1.1.0 brought in is installed and locked; pkg.json lists only what was added.
    expect(await project.read('addons/utils/utils.gd')).toBe('extends Object\n');
    expect(JSON.parse(await project.read('pkg.json'))).toEqual({ dependencies: { 'com.fixture.godot.dialogue': '1.1.0' } });
    const lockAfterUpdate = JSON.parse(await project.read('pkg-lock.json'));
    expect(Object.keys(lockAfterUpdate.packages)).toEqual(['com.fixture.godot.dialogue', 'com.fixture.godot.utils']);
    expect(lockAfterUpdate.packages['com.fixture.godot.dialogue']).toMatchObject({
      version: '1.1.0',
      dependencies: { 'com.fixture.godot.utils': '1.0.0' },
    });
    expect(lockAfterUpdate.packages['com.fixture.godot.utils']).toMatchObject({ version: '1.0.0', projectEdits: [] });
    // The plugin stays enabled once; the library has no plugin.cfg and needs no edit.
    expect((await project.read('project.godot')).match(/res:\/\/addons\/dialogue\/plugin\.cfg/g)).toHaveLength(1);

    const across = await pkg(['update', '--latest', '--json'], cwd);
    expect(across.stderr).toBe('');
    expect(across.code).toBe(0);
    expect(across.json.updated).toEqual([{ package: 'com.fixture.godot.dialogue', old_version: '1.1.0', new_version: '2.0.0' }]);
    expect(across.json.dependencies).toEqual({
      installed: [],
      removed: [{ package: 'com.fixture.godot.utils', version: '1.0.0' }],
    });
    expect(await project.read('addons/dialogue/plugin.cfg')).toBe(PLUGIN_CFG('2.0.0'));
    // 2.0.0 no longer needs the library: it goes with the version that brought it.
    await expect(readdir(project.path('addons/utils'))).rejects.toThrow(/ENOENT/);
    expect(Object.keys(JSON.parse(await project.read('pkg-lock.json')).packages)).toEqual(['com.fixture.godot.dialogue']);

    const refused = await pkg(['add', 'com.fixture.godot.future'], cwd);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'Error: No version of com.fixture.godot.future is compatible with Godot 4.2\n' +
        'Hint: Published versions: 1.1.0 (needs Godot 4.5), 1.0.0 (needs Godot 4.4)\n',
    );
    const exact = await pkg(['add', 'com.fixture.godot.dialogue@1.2.0'], cwd);
    expect(exact.code).toBe(1);
    expect(exact.stderr).toContain(
      'Error: com.fixture.godot.dialogue@1.2.0 requires Godot 4.3 or newer; this project uses Godot 4.2\n',
    );
    expect(exact.stderr).toContain('Hint: Versions that work with Godot 4.2: 2.0.0, 1.1.0, 1.0.0');
    await expect(project.read('addons/future/plugin.cfg')).rejects.toThrow(/ENOENT/);

    const withLock = await project.read('project.godot');
    const fresh = await freshCopy(project.dir, ['project.godot', 'pkg.json', 'pkg-lock.json']);
    const restored = await pkg(['install', '--json'], fresh);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.json).toMatchObject({
      engine: 'godot',
      installed: [{ package: 'com.fixture.godot.dialogue', version: '2.0.0' }],
      in_place: [],
    });
    expect(await readFile(path.join(fresh, 'addons/dialogue/plugin.cfg'), 'utf8')).toBe(PLUGIN_CFG('2.0.0'));
    expect(await readFile(path.join(fresh, 'project.godot'), 'utf8')).toBe(withLock);
    expect(await readFile(path.join(fresh, 'pkg-lock.json'), 'utf8')).toBe(await project.read('pkg-lock.json'));
    const again = await pkg(['install', '--json'], fresh);
    expect(again.json).toMatchObject({ installed: [], in_place: [{ package: 'com.fixture.godot.dialogue', version: '2.0.0' }] });

    // A cached tarball is checked as it is extracted: a damaged one is downloaded again and the
    // restore installs what the lock says, as from an empty cache.
    const cachedTarball = path.join(home.env.XDG_CACHE_HOME!, 'pkg', 'tarballs', 'com.fixture.godot.dialogue', '2.0.0.tgz');
    const good = await readFile(cachedTarball);
    await writeFile(cachedTarball, Buffer.concat([good.subarray(0, 100), Buffer.alloc(good.length - 100)]));
    const damaged = await freshCopy(project.dir, ['project.godot', 'pkg.json', 'pkg-lock.json']);
    const repaired = await pkg(['install', '--json'], damaged);
    expect(repaired.stderr).toBe('');
    expect(repaired.json).toMatchObject({
      installed: [{ package: 'com.fixture.godot.dialogue', version: '2.0.0', cached: false }],
    });
    expect(await readFile(path.join(damaged, 'addons/dialogue/plugin.cfg'), 'utf8')).toBe(PLUGIN_CFG('2.0.0'));
    expect((await readFile(cachedTarball)).equals(good)).toBe(true);

    // Search --detail says which engines the found version supports.
    const found = await pkg(['search', 'com.fixture.unreal.barks', '--detail', '--json'], cwd);
    expect(found.json.results[0]).toMatchObject({
      name: 'com.fixture.unreal.barks',
      engines: [{ engine: 'unreal', min: '5.4', max: '5.4' }],
    });
    expect((await pkg(['search', 'com.fixture.unreal.barks', '--detail'], cwd)).stdout).toContain(
      '\n  Engines: Unreal Engine 5.4 only\n',
    );

    const listed = await pkg(['list', '--json'], cwd);
    expect(listed.json.packages).toEqual([
      {
        package: 'com.fixture.godot.dialogue',
        requested: '2.0.0',
        resolved: '2.0.0',
        latest_compatible: '2.0.0',
        status: 'registry',
        outdated: false,
        registry: registry.url,
      },
    ]);

    await writeFile(project.path('addons/dialogue/plugin.gd'), `${PLUGIN_GD('2.0.0')}# my tweak\n`);
    const lockBefore = await project.read('pkg-lock.json');
    const stopped = await pkg(['uninstall', 'com.fixture.godot.dialogue'], cwd);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toBe(
      'Error: Files of installed packages were changed by hand: addons/dialogue/plugin.gd (modified)\n' +
        'Hint: Keep a copy of your changes, or run again with --force: the package folders are backed up first.\n',
    );
    expect(await project.read('pkg-lock.json')).toBe(lockBefore);
    expect(await project.read('project.godot')).toBe(withLock);
    expect(await project.read('addons/dialogue/plugin.gd')).toContain('# my tweak');

    const forced = await pkg(['uninstall', 'com.fixture.godot.dialogue', '--force', '--json'], cwd);
    expect(forced.stderr).toBe('');
    expect(forced.stdout).toMatch(/"success": ?true/);
    expect(forced.code).toBe(0);
    expect(forced.json.removed).toEqual([{ package: 'com.fixture.godot.dialogue', version: '2.0.0' }]);
    expect(await readFile(path.join(forced.json.backup_path, 'addons/dialogue/plugin.gd'), 'utf8')).toContain('# my tweak');
    expect(await project.read('project.godot')).toBe(PROJECT_GODOT);
    // The addons/ folder the first add created went with the last package.
    expect((await readdir(project.dir)).sort()).toEqual([
      'icon.svg',
      'main.tscn',
      'pkg-lock.json',
      'pkg.json',
      'project.godot',
      'scenes',
    ]);
    expect(JSON.parse(await project.read('pkg.json'))).toEqual({ dependencies: {} });
    expect(JSON.parse(await project.read('pkg-lock.json'))).toEqual({ lockfileVersion: 1, packages: {} });
    // About thirty runs of the built `pkg`, one after another.
  }, 180_000);

  it('refuses to overwrite a folder the lock does not list, changing nothing', async () => {
    const project = await tmpProject('pkg-godot-project-', {
      'project.godot': PROJECT_GODOT,
      'addons/dialogue/plugin.cfg': '[plugin]\n\nname="Mine"\n',
    });
    const result = await pkg(['add', 'com.fixture.godot.dialogue'], project.dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: addons/dialogue exists but pkg-lock.json does not list it\n' +
        'Hint: Move the folder away (it may be a copy installed by hand), then run pkg again; nothing was changed.\n',
    );
    expect(await project.read('project.godot')).toBe(PROJECT_GODOT);
    expect(await project.read('addons/dialogue/plugin.cfg')).toBe('[plugin]\n\nname="Mine"\n');
    expect((await readdir(project.dir)).sort()).toEqual(['addons', 'project.godot']);
  });

  it("takes the engine version from a C# project's Godot.NET.Sdk, and --engine-version over both", async () => {
    const project = await tmpProject('pkg-godot-project-', {
      'project.godot': PROJECT_GODOT,
      'Dungeon.csproj':
        '<Project Sdk="Godot.NET.Sdk/4.3.0">\n  <PropertyGroup>\n    <TargetFramework>net6.0</TargetFramework>\n  </PropertyGroup>\n</Project>\n',
    });
    const csharp = await pkg(['update', '--dry-run', '--json'], project.dir);
    expect(csharp.json).toMatchObject({ engine: 'godot', engine_version: '4.3.0' });
    const given = await pkg(['add', 'com.fixture.godot.future', '--engine-version', '4.4', '--json'], project.dir);
    expect(given.stderr).toBe('');
    expect(given.json.added).toEqual([{ package: 'com.fixture.godot.future', version: '1.0.0' }]);
  });
});

describe('an Unreal Engine 5 project (built binary)', () => {
  it('installs into Plugins/, enables the plugin with the file’s tabs kept, updates, restores from the lock and uninstalls byte for byte', async () => {
    const before = uproject('5.3');
    const project = await tmpProject('pkg-unreal-project-', {
      'Arena.uproject': before,
      'Config/DefaultEngine.ini': '[/Script/EngineSettings.GameMapsSettings]\n',
      'Source/Arena/Arena.Build.cs': 'public class Arena : ModuleRules {}\n',
    });
    const cwd = project.path('Source/Arena');

    const added = await pkg(['add', 'com.fixture.unreal.barks@1.0.0'], cwd);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Engine: Unreal Engine 5.3');
    expect(await project.read('Plugins/Barks/Barks.uplugin')).toBe(uplugin('1.0.0'));
    expect(await readFile(project.path('Plugins/Barks/Resources/Icon128.png'))).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2]),
    );
    await expect(project.read('Plugins/Barks/package.json')).rejects.toThrow(/ENOENT/);
    const enabled = before.replace(
      '\t\t}\r\n\t]\r\n}',
      '\t\t},\r\n\t\t{\r\n\t\t\t"Name": "Barks",\r\n\t\t\t"Enabled": true\r\n\t\t}\r\n\t]\r\n}',
    );
    expect(await project.read('Arena.uproject')).toBe(enabled);
    const lock = JSON.parse(await project.read('pkg-lock.json'));
    expect(lock.packages['com.fixture.unreal.barks']).toMatchObject({
      version: '1.0.0',
      folder: 'Plugins/Barks',
      projectEdits: [{ file: 'Arena.uproject', kind: 'unreal-plugin', value: 'Barks' }],
    });
    expect(Object.keys(lock.packages['com.fixture.unreal.barks'].files)).toEqual([
      'Barks.uplugin',
      'Resources/Icon128.png',
      'Source/Barks/Barks.Build.cs',
      'Source/Barks/Private/Barks.cpp',
    ]);

    // Building the plugin writes Binaries/ and Intermediate/ into its folder: not local edits.
    await mkdir(project.path('Plugins/Barks/Intermediate/Build'), { recursive: true });
    await writeFile(project.path('Plugins/Barks/Intermediate/Build/Barks.json'), '{}');

    const within = await pkg(['update', '--json'], cwd);
    expect(within.stderr).toBe('');
    expect(within.json.updated).toEqual([{ package: 'com.fixture.unreal.barks', old_version: '1.0.0', new_version: '1.1.0' }]);
    expect(await project.read('Plugins/Barks/Source/Barks/Private/Barks.cpp')).toContain('// 1.1.0');
    // 2.1.0 supports 5.4 only: --latest stops at 2.0.0, the newest this project can load.
    const across = await pkg(['update', '--latest', '--json'], cwd);
    expect(across.json.updated).toEqual([
      {
        package: 'com.fixture.unreal.barks',
        old_version: '1.1.0',
        new_version: '2.0.0',
        needs_newer_engine: { version: '2.1.0', requires: 'Unreal Engine 5.4 only' },
      },
    ]);
    expect(await project.read('Arena.uproject')).toBe(enabled);

    const fresh = await freshCopy(project.dir, ['Arena.uproject', 'pkg.json', 'pkg-lock.json']);
    const restored = await pkg(['install'], fresh);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('Installed and Verified:\n  com.fixture.unreal.barks@2.0.0');
    expect(await readFile(path.join(fresh, 'Plugins/Barks/Barks.uplugin'), 'utf8')).toBe(uplugin('2.0.0'));
    expect(await readFile(path.join(fresh, 'Arena.uproject'), 'utf8')).toBe(enabled);

    // A lock whose integrity or file digests do not match what the registry serves installs nothing.
    for (const tamper of [
      (entry: { integrity: string }) => (entry.integrity = `sha512-${Buffer.alloc(64).toString('base64')}`),
      (entry: { files: Record<string, string> }) => (entry.files['Barks.uplugin'] = sha256('forged')),
    ]) {
      const copy = await freshCopy(project.dir, ['Arena.uproject', 'pkg.json', 'pkg-lock.json']);
      const forged = JSON.parse(await readFile(path.join(copy, 'pkg-lock.json'), 'utf8'));
      tamper(forged.packages['com.fixture.unreal.barks']);
      await writeFile(path.join(copy, 'pkg-lock.json'), JSON.stringify(forged, null, 2));
      const refused = await pkg(['install'], copy);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^Error: Integrity check failed for com\.fixture\.unreal\.barks@2\.0\.0/);
      expect((await readdir(copy)).sort()).toEqual(['Arena.uproject', 'pkg-lock.json', 'pkg.json']);
    }

    const removed = await pkg(['uninstall', 'com.fixture.unreal.barks'], cwd);
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    expect(await project.read('Arena.uproject')).toBe(before);
    // The Plugins/ folder the first add created went with the last package.
    expect((await readdir(project.dir)).sort()).toEqual(['Arena.uproject', 'Config', 'Source', 'pkg-lock.json', 'pkg.json']);
  });

  it('needs --engine-version (or engineVersion) for a source build, and says so', async () => {
    const project = await tmpProject('pkg-unreal-project-', {
      'Arena.uproject': uproject('{E1C4A0B2-4F3C-4B1D-9A8E-2C5D7F6A1B3C}'),
    });
    const refused = await pkg(['add', 'com.fixture.unreal.barks'], project.dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "Error: Arena.uproject has EngineAssociation '{E1C4A0B2-4F3C-4B1D-9A8E-2C5D7F6A1B3C}', which is not an engine version\n" +
        'Hint: A project of a source-built engine does not say its version: give it with --engine-version 5.3, or once with `pkg config set engineVersion 5.3`.\n',
    );
    const given = await pkg(['add', 'com.fixture.unreal.barks', '--engine-version', '5.4', '--json'], project.dir);
    expect(given.stderr).toBe('');
    expect(given.json.added).toEqual([{ package: 'com.fixture.unreal.barks', version: '2.1.0' }]);
  });
});
