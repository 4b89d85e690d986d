import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loginUser, removedAfterTest, startRegistry, tmpProject, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg, type Home } from '../support/spawn.js';

// The built `pkg publish` and `pkg pack` with Godot and Unreal packages, then `pkg add` in
// another project of that engine, against a real registry.
let registry: TestRegistry;
let home: Home;
let token: string;

beforeAll(async () => {
  registry = await startRegistry();
  token = await loginUser(registry.url, 'engine-author');
  home = await makeHome();
});
afterAll(async () => registry?.close());

const pkg = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  runPkg(args, { home, cwd, env: { PKG_REGISTRY: registry.url, ...env } });

const sha512 = (data: Buffer) => `sha512-${createHash('sha512').update(data).digest('base64')}`;

const PLUGIN_CFG =
  '[plugin]\n\nname="Dialogue Kit"\ndescription="Branching dialogue"\nauthor="Studio"\nversion="1.0.0"\nscript="plugin.gd"\n';
const PLUGIN_GD = '@tool\nextends EditorPlugin\n';

const PROJECT_GODOT = `config_version=5

[application]

config/name="Dungeon"
config/features=PackedStringArray("4.2", "Forward Plus")
`;

const UPROJECT = '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.3",\n\t"Category": "",\n\t"Description": ""\n}';

const uplugin = (version: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      FileVersion: 3,
      Version: 1,
      VersionName: version,
      FriendlyName: 'Barks',
      Modules: [{ Name: 'Barks', Type: 'Runtime', LoadingPhase: 'Default' }],
      ...extra,
    },
    null,
    '\t',
  );

describe('publishing for every engine (built binary)', () => {
  it('publishes a Godot addon folder (no .meta files asked for), which another Godot project then adds', async () => {
    const source = await removedAfterTest(
      tmpProject('pkg-godot-package-', {
        'package.json': { name: 'com.studio.dialogue-kit', version: '1.0.0', godot: '4.2', description: 'Dialogue for Godot' },
        'README.md': '# Dialogue Kit\n',
        'addons/dialogue_kit/plugin.cfg': PLUGIN_CFG,
        'addons/dialogue_kit/plugin.gd': PLUGIN_GD,
      }),
    );
    const published = await pkg(['publish', '--json'], source.dir, { PKG_TOKEN: token });
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({ success: true, published: true, engines: ['godot'], warnings: [] });

    const project = await removedAfterTest(tmpProject('pkg-godot-consumer-', { 'project.godot': PROJECT_GODOT }));
    const added = await pkg(['add', 'com.studio.dialogue-kit'], project.dir);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(await project.read('addons/dialogue_kit/plugin.cfg')).toBe(PLUGIN_CFG);
    expect(await project.read('project.godot')).toContain('enabled=PackedStringArray("res://addons/dialogue_kit/plugin.cfg")');
  });

  it('refuses a Godot package laid out for no engine, naming why, before any network traffic', async () => {
    const source = await removedAfterTest(
      tmpProject('pkg-godot-bad-', {
        'package.json': { name: 'com.studio.loose', version: '1.0.0', godot: '4.2' },
        'plugin.gd': PLUGIN_GD,
        'scripts/a.gd': 'extends Node\n',
      }),
    );
    const refused = await pkg(['publish'], source.dir, { PKG_TOKEN: token });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: Cannot publish .+: file scripts\/a\.gd is outside addons\/<folder>\//);
    expect(refused.stderr).not.toMatch(/\.meta/);
    expect((await fetch(`${registry.url}/com.studio.loose`)).status).toBe(404);
  });

  it('packs an Unreal plugin, publishes that tarball byte for byte, and another Unreal project adds it', async () => {
    const source = await removedAfterTest(
      tmpProject('pkg-unreal-package-', {
        'package.json': { name: 'com.studio.barks', version: '1.0.0', unreal: '5.3' },
        'Barks.uplugin': uplugin('1.0.0'),
        'Source/Barks/Barks.Build.cs': 'public class Barks : ModuleRules {}\n',
      }),
    );
    // Outside the folder: a tarball left inside would be packed by the next publish, as with npm.
    const packed = await pkg(['pack', '--pack-destination', '../barks-dist', '--json'], source.dir);
    expect(packed.stderr).toBe('');
    expect(packed.code).toBe(0);
    const report = JSON.parse(packed.stdout);
    const file = path.join(path.dirname(source.dir), 'barks-dist', 'com.studio.barks-1.0.0.tgz');
    onTestFinished(() => rm(path.dirname(file), { recursive: true, force: true }));
    expect(report).toMatchObject({ success: true, file, engines: ['unreal'], dry_run: false });
    const bytes = await readFile(file);
    expect(report.integrity).toBe(sha512(bytes));
    // The same bytes publish --dry-run of the folder would send.
    const preview = JSON.parse((await pkg(['publish', '--dry-run', '--json'], source.dir)).stdout);
    expect(preview.integrity).toBe(report.integrity);

    const published = await pkg(['publish', file, '--json'], source.dir, { PKG_TOKEN: token });
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({ tarball: file, integrity: sha512(bytes), published: true });
    const served = Buffer.from(
      await (await fetch(`${registry.url}/com.studio.barks/-/com.studio.barks-1.0.0.tgz`)).arrayBuffer(),
    );
    expect(served.equals(bytes)).toBe(true);

    const project = await removedAfterTest(tmpProject('pkg-unreal-consumer-', { 'Arena.uproject': UPROJECT }));
    const added = await pkg(['add', 'com.studio.barks'], project.dir);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(await project.read('Plugins/Barks/Barks.uplugin')).toBe(uplugin('1.0.0'));
    expect(JSON.parse(await project.read('Arena.uproject')).Plugins).toEqual([{ Name: 'Barks', Enabled: true }]);
  });

  it('sends a tarball made by another tool exactly as it is, and checks it as it would a folder', async () => {
    // A tarball pkg would never write (other mtimes, other order): a re-pack would change its bytes.
    const source = await removedAfterTest(
      tmpProject('pkg-unreal-foreign-', {
        'package/package.json': { name: 'com.studio.voices', version: '2.0.0', unreal: '5.3', unrealMax: '5.3' },
        'package/Voices.uplugin': uplugin('2.0.0', {
          FriendlyName: 'Voices',
          Modules: [{ Name: 'Voices' }],
          EngineVersion: '5.3.0',
        }),
        'package/Binaries/Win64/UnrealEditor-Voices.dll': 'MZ',
      }),
    );
    execFileSync('tar', ['-czf', 'voices.tgz', 'package/Voices.uplugin', 'package/package.json', 'package/Binaries'], {
      cwd: source.dir,
    });
    const file = source.path('voices.tgz');
    const bytes = await readFile(file);
    const published = await pkg(['publish', file], source.dir, { PKG_TOKEN: token });
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    expect(published.stdout).toContain(`Tarball: ${file} (sent as it is)\n`);
    const served = Buffer.from(
      await (await fetch(`${registry.url}/com.studio.voices/-/com.studio.voices-2.0.0.tgz`)).arrayBuffer(),
    );
    expect(served.equals(bytes)).toBe(true);

    // Binaries for another engine version: published, with a warning.
    await writeFile(
      source.path('package/package.json'),
      JSON.stringify({ name: 'com.studio.voices', version: '2.1.0', unreal: '5.4', unrealMax: '5.4' }),
    );
    await writeFile(
      source.path('package/Voices.uplugin'),
      uplugin('2.1.0', { FriendlyName: 'Voices', Modules: [{ Name: 'Voices' }], EngineVersion: '5.3.0' }),
    );
    execFileSync('tar', ['-czf', 'voices-2.1.0.tgz', 'package'], { cwd: source.dir });
    const warned = await pkg(['publish', 'voices-2.1.0.tgz'], source.dir, { PKG_TOKEN: token });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/Binaries\/ were built for Unreal Engine 5\.3 .* do not include/);

    // A tarball whose .uplugin disagrees with its package.json is refused like a folder would be.
    await writeFile(
      source.path('package/package.json'),
      JSON.stringify({ name: 'com.studio.voices', version: '2.2.0', unreal: '5.4' }),
    );
    execFileSync('tar', ['-czf', 'voices-2.2.0.tgz', 'package'], { cwd: source.dir });
    const refused = await pkg(['publish', 'voices-2.2.0.tgz'], source.dir, { PKG_TOKEN: token });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^Error: Cannot publish .*voices-2\.2\.0\.tgz: Voices\.uplugin: "VersionName" "2\.1\.0" is not the package's version 2\.2\.0/,
    );
    const document = await (await fetch(`${registry.url}/com.studio.voices`)).json();
    expect(Object.keys(document.versions).sort()).toEqual(['2.0.0', '2.1.0']);
  });
});
