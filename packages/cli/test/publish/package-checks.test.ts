import { describe, expect, it } from 'vitest';
import { checkPackage, packageEngines } from '../../src/publish/package-checks.js';
import { pluginSection } from '../../src/publish/godot-checks.js';

const PLUGIN_CFG =
  '[plugin]\n\nname="Dialogue Kit"\ndescription="Dialogue"\nauthor="Studio"\nversion="1.2.0"\nscript="plugin.gd"\n';
const godot = { name: 'com.studio.dialogue-kit', version: '1.2.0', godot: '4.2' };
const godotFiles = ['README.md', 'package.json', 'addons/dialogue_kit/plugin.cfg', 'addons/dialogue_kit/plugin.gd'];
const godotText = (texts: Record<string, string>) => (file: string) => texts[file];

const uplugin = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    FileVersion: 3,
    Version: 1,
    VersionName: '1.2.0',
    FriendlyName: 'Barks',
    Modules: [{ Name: 'Barks', Type: 'Runtime' }],
    ...extra,
  });
const unreal = { name: 'com.studio.barks', version: '1.2.0', unreal: '5.3' };
const unrealFiles = ['Barks.uplugin', 'Source/Barks/Barks.Build.cs', 'package.json'];

describe('packageEngines', () => {
  it('reads the engines a package.json names, Unity when it names none', () => {
    expect(packageEngines({})).toEqual(['unity']);
    expect(packageEngines({ unity: '2022.3' })).toEqual(['unity']);
    expect(packageEngines({ godot: '4.2' })).toEqual(['godot']);
    expect(packageEngines({ unreal: '5.3', godot: '4.2' })).toEqual(['godot', 'unreal']);
  });
});

describe('checkPackage for Godot', () => {
  it('accepts an addon folder with its plugin.cfg and asks for no .meta files or displayName', () => {
    const result = checkPackage(godot, godotFiles, godotText({ 'addons/dialogue_kit/plugin.cfg': PLUGIN_CFG }));
    expect(result).toEqual({ engines: ['godot'], problems: [], warnings: [] });
  });

  it('warns about a library without plugin.cfg, and about a plugin.cfg version that is not the package version', () => {
    const library = checkPackage(godot, ['package.json', 'addons/util/util.gd'], godotText({}));
    expect(library.problems).toEqual([]);
    expect(library.warnings).toEqual([
      'addons/util/ has no plugin.cfg: it is installed as files and not enabled as an editor plugin',
    ]);
    const older = checkPackage(
      godot,
      godotFiles,
      godotText({ 'addons/dialogue_kit/plugin.cfg': PLUGIN_CFG.replace('1.2.0', '1.1.0') }),
    );
    expect(older.warnings).toEqual(['addons/dialogue_kit/plugin.cfg says version "1.1.0" while package.json says 1.2.0']);
  });

  it.each([
    [{ files: ['package.json', 'plugin.gd'] }, /there is no addons\/<folder>\//],
    [{ files: ['package.json', 'scripts/a.gd', 'addons/x/a.gd'] }, /file scripts\/a\.gd is outside addons\/<folder>\//],
    [{ files: ['package.json', 'addons/a/a.gd', 'addons/b/b.gd'] }, /there are 2 folders in addons\/ \(a, b\)/],
    [{ manifest: { godot: '4' } }, /'godot' must be a minimum engine version of the form <major>\.<minor>/],
    [{ manifest: { godotMax: '4.1' } }, /'godotMax' must not be below 'godot'/],
    [{ cfg: '[plugin]\nname="x"\n' }, /plugin\.cfg has no script= in \[plugin\]/],
    [{ cfg: 'name="x"\n' }, /plugin\.cfg has no \[plugin\] section/],
    [{ cfg: PLUGIN_CFG.replace('plugin.gd', 'missing.gd') }, /names script "missing\.gd", which the package does not hold/],
  ])('refuses %j', (change, problem) => {
    const c = change as { files?: string[]; manifest?: Record<string, unknown>; cfg?: string };
    const result = checkPackage(
      { ...godot, ...c.manifest },
      c.files ?? godotFiles,
      godotText({ 'addons/dialogue_kit/plugin.cfg': c.cfg ?? PLUGIN_CFG }),
    );
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(problem);
  });

  it('reads plugin.cfg as Godot writes it, comments and CRLF included', () => {
    expect(pluginSection('; comment\r\n[plugin]\r\nname="A"\r\nscript="p.gd"\r\n[other]\r\nname="B"\r\n')).toEqual(
      new Map([
        ['name', 'A'],
        ['script', 'p.gd'],
      ]),
    );
  });
});

describe('checkPackage for Unreal', () => {
  it('accepts a plugin whose .uplugin agrees with the package, with no .meta files or displayName', () => {
    expect(checkPackage(unreal, unrealFiles, (f) => (f === 'Barks.uplugin' ? uplugin() : undefined))).toEqual({
      engines: ['unreal'],
      problems: [],
      warnings: [],
    });
    // dialogue-kit and DialogueKit are one name written two ways.
    const kit = checkPackage({ ...unreal, name: 'com.studio.dialogue-kit' }, ['DialogueKit.uplugin', 'package.json'], () =>
      uplugin({ Modules: [{ Name: 'DialogueKit' }] }),
    );
    expect(kit.problems).toEqual([]);
  });

  it.each([
    [{ files: ['package.json', 'Source/A.cpp'] }, /there is no <Name>\.uplugin beside package\.json/],
    [{ files: ['package.json', 'A.uplugin', 'B.uplugin'] }, /there are 2 \.uplugin files/],
    [{ manifest: { name: 'com.studio.voices' } }, /names the plugin Barks, but the package is com\.studio\.voices/],
    [{ text: uplugin({ VersionName: '1.1.0' }) }, /"VersionName" "1\.1\.0" is not the package's version 1\.2\.0/],
    [{ text: uplugin({ FileVersion: 2 }) }, /"FileVersion" must be 3/],
    [{ text: '{"FileVersion": 3,' }, /Barks\.uplugin is not a plugin descriptor Unreal can read/],
    [{ text: uplugin({ Modules: [{ Type: 'Runtime' }] }) }, /module 1 has no valid "Name"/],
    [{ manifest: { unreal: 'five' } }, /'unreal' must be a minimum engine version/],
  ])('refuses %j', (change, problem) => {
    const c = change as { files?: string[]; manifest?: Record<string, unknown>; text?: string };
    const result = checkPackage({ ...unreal, ...c.manifest }, c.files ?? unrealFiles, () => c.text ?? uplugin());
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(problem);
  });

  it('warns about binaries built for another engine version than the package claims', () => {
    const files = [...unrealFiles, 'Binaries/Win64/UnrealEditor-Barks.dll'];
    const check = (manifest: Record<string, unknown>, extra: Record<string, unknown>) =>
      checkPackage({ ...unreal, ...manifest }, files, () => uplugin(extra)).warnings;
    expect(check({ unrealMax: '5.3' }, { EngineVersion: '5.3.0' })).toEqual([]);
    expect(check({ unreal: '5.4', unrealMax: '5.4' }, { EngineVersion: '5.3.0' })[0]).toMatch(
      /Binaries\/ were built for Unreal Engine 5\.3 \("EngineVersion" of Barks\.uplugin\), which the package's "unreal" fields \(5\.4–5\.4\) do not include/,
    );
    expect(check({}, { EngineVersion: '5.3.0' })[0]).toMatch(
      /load in that version only, but the package claims 5\.3 and newer: set "unreal" and "unrealMax" to 5\.3/,
    );
    expect(check({}, {})[0]).toMatch(/has no "EngineVersion"/);
    // Without binaries, any version is fine: the project builds the plugin from source.
    expect(checkPackage(unreal, unrealFiles, () => uplugin()).warnings).toEqual([]);
  });
});

describe('checkPackage for Unity', () => {
  it('still wants every .meta and the Unity fields, and runs both engines’ checks for a package naming two', () => {
    const unity = checkPackage({ name: 'com.studio.tool', version: '1.0.0', unity: '2022.3' }, ['package.json'], () => undefined);
    expect(unity.problems).toEqual([
      '"displayName" is missing: the Unity Package Manager shows it as the package\'s name',
      'file package.json has no package.json.meta',
    ]);
    const both = checkPackage(
      { ...godot, unity: '2022.3', displayName: 'Kit' },
      godotFiles,
      godotText({ 'addons/dialogue_kit/plugin.cfg': PLUGIN_CFG }),
    );
    expect(both.engines).toEqual(['unity', 'godot']);
    expect(both.problems).toContain('file addons/dialogue_kit/plugin.cfg has no addons/dialogue_kit/plugin.cfg.meta');
  });
});
