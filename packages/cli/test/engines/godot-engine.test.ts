import fc from 'fast-check';
import * as nodeFs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { removedAfterTest, tmpProject, type ProjectFiles } from '@pkg/testkit';
import { selectEngine } from '../../src/engines/index.js';
import { godotEngine } from '../../src/engines/godot/godot-engine.js';
import {
  disableEditorPlugin,
  enableEditorPlugin,
  godotFeatureVersion,
  godotNetSdkVersion,
} from '../../src/engines/godot/project-godot.js';
import { projectFs } from '../../src/files/project-fs.js';
import { ClientError } from '../../src/errors/client-errors.js';

const fs = projectFs(nodeFs);
const project = (files: ProjectFiles) => removedAfterTest(tmpProject('pkg-godot-unit-', files));

const HEADER = '; Engine configuration file.\n\nconfig_version=5\n\n';
const APPLICATION = '[application]\n\nconfig/name="G"\nconfig/features=PackedStringArray("4.2", "Forward Plus")\n';

describe('Godot 4 projects', () => {
  it('are found by a project.godot with config_version=5, walking up; Godot 3 projects are not', async () => {
    const godot4 = await project({ 'project.godot': HEADER + APPLICATION, 'scenes/level/': '' });
    expect(await selectEngine(godot4.path('scenes/level'), fs)).toEqual({ engine: godotEngine, project: godot4.dir });
    const godot3 = await project({ 'project.godot': 'config_version=4\n\n[application]\n' });
    expect(await godotEngine.detect(godot3.dir, fs)).toBe(false);
  });

  it('name Godot 3 as unsupported when a Godot 3 project is the only one found, also with --engine godot', async () => {
    const godot3 = await project({ 'project.godot': 'config_version=4\n\n[application]\n\nconfig/name="Old"\n', 'scenes/': '' });
    for (const forced of [undefined, 'godot']) {
      const attempt = selectEngine(godot3.path('scenes'), fs, forced);
      await expect(attempt).rejects.toMatchObject({
        code: 'ENGINE_UNSUPPORTED',
        message: `${godot3.path('project.godot')} is a Godot 3 project (config_version=4): pkg supports Godot 4 projects only`,
        hint: expect.stringMatching(/Godot 4/),
      });
    }
    // A supported project around it wins: the Godot 3 folder is then just a folder of it.
    const outer = await project({ 'project.godot': HEADER + APPLICATION, 'old/project.godot': 'config_version=4\n' });
    expect(await selectEngine(outer.path('old'), fs)).toEqual({ engine: godotEngine, project: outer.dir });
    // Nothing at all: the usual error.
    const none = await project({ 'readme.txt': 'x' });
    await expect(selectEngine(none.dir, fs)).rejects.toMatchObject({ code: 'NO_ENGINE_DETECTED' });
  });

  it("read the version from config/features, a C# project's Godot.NET.Sdk winning", async () => {
    const plain = await project({ 'project.godot': HEADER + APPLICATION });
    expect(await godotEngine.readEngineVersion(plain.dir, fs)).toEqual({ text: '4.2' });
    const csharp = await project({
      'project.godot': HEADER + APPLICATION,
      'Game.csproj': '<Project Sdk="Godot.NET.Sdk/4.2.1">\n</Project>\n',
    });
    expect(await godotEngine.readEngineVersion(csharp.dir, fs)).toEqual({ text: '4.2.1' });
    const none = await project({ 'project.godot': `${HEADER}[application]\n\nconfig/name="G"\n` });
    const version = await godotEngine.readEngineVersion(none.dir, fs);
    expect(version.text).toBeNull();
    expect(version.warning).toMatch(/Godot compatibility is not checked/);
  });

  it('refuse --engine godot where there is no project.godot', async () => {
    const empty = await project({ 'pkg.json': '{}' });
    const { engine, project: root } = await selectEngine(empty.dir, fs, 'godot');
    await expect(engine.readEngineVersion(root, fs)).rejects.toThrow(`project.godot not found in ${empty.dir}`);
  });

  it.each([
    ['PackedStringArray("4.3", "Mobile")', '4.3'],
    ['PackedStringArray("Forward Plus", "4.1")', '4.1'],
    ['PackedStringArray("Forward Plus")', null],
  ])('config/features=%s → %j', (features, expected) => {
    expect(godotFeatureVersion(`${HEADER}[application]\n\nconfig/features=${features}\n`)).toBe(expected);
  });

  it('ignores config/features outside [application]', () => {
    expect(godotFeatureVersion(`${HEADER}[other]\n\nconfig/features=PackedStringArray("4.2")\n`)).toBeNull();
    expect(godotNetSdkVersion('<Project Sdk="Microsoft.NET.Sdk">')).toBeNull();
  });

  it('check compatibility against godot and godotMax; a version without godot is not a Godot package', () => {
    const record = (fields: Record<string, string>) => ({ name: 'com.a.b', version: '1.0.0', dist: {} as never, ...fields });
    const v = (text: string) => ({ text });
    expect(godotEngine.isCompatible(record({ godot: '4.2' }), v('4.2'))).toBe(true);
    expect(godotEngine.isCompatible(record({ godot: '4.2' }), v('4.1'))).toBe(false);
    expect(godotEngine.isCompatible(record({ godot: '4.1', godotMax: '4.2' }), v('4.2.3'))).toBe(true);
    expect(godotEngine.isCompatible(record({ godot: '4.1', godotMax: '4.2' }), v('4.3'))).toBe(false);
    expect(godotEngine.isCompatible(record({ unity: '2021.3' }), v('4.2'))).toBe(false);
    expect(godotEngine.isCompatible(record({}), { text: null })).toBe(true);
    expect(godotEngine.requirementOf(record({ godot: '4.1', godotMax: '4.2' }))).toBe('Godot 4.1–4.2');
  });
});

describe('project.godot edits', () => {
  const VALUE = 'res://addons/dialog/plugin.cfg';

  it.each([
    ['no [editor_plugins], a later section', `${HEADER}${APPLICATION}\n[rendering]\n\nx=1\n`, 'section'],
    ['no [editor_plugins], nothing after', `${HEADER}${APPLICATION}`, 'section'],
    ['[editor_plugins] without enabled', `${HEADER}${APPLICATION}\n[editor_plugins]\n\nother=1\n\n[rendering]\n\nx=1\n`, 'line'],
    [
      'other plugins enabled',
      `${HEADER}${APPLICATION}\n[editor_plugins]\n\nenabled=PackedStringArray("res://addons/a/plugin.cfg")\n`,
      undefined,
    ],
    ['an empty list', `${HEADER}${APPLICATION}\n[editor_plugins]\n\nenabled=PackedStringArray()\n`, undefined],
    ['CRLF line ends', `${HEADER}${APPLICATION}\n[rendering]\n\nx=1\n`.replace(/\n/g, '\r\n'), 'section'],
    ['no final end of line', `${HEADER}${APPLICATION}`.slice(0, -1), 'section-eol'],
    ['no final end of line, CRLF', `${HEADER}${APPLICATION}`.slice(0, -1).replace(/\n/g, '\r\n'), 'section-eol'],
    [
      'an empty [editor_plugins] before another section',
      `${HEADER}${APPLICATION}\n[editor_plugins]\n\n[rendering]\n\nx=1\n`,
      'first-line',
    ],
    ['an empty [editor_plugins] last', `${HEADER}${APPLICATION}\n[editor_plugins]\n`, 'first-line'],
    ['an empty [editor_plugins] last, with a blank line', `${HEADER}${APPLICATION}\n[editor_plugins]\n\n`, 'first-line'],
    [
      'an empty [editor_plugins] ending the file without an end of line',
      `${HEADER}${APPLICATION}\n[editor_plugins]`,
      'first-line',
    ],
    [
      '[editor_plugins] with another key, no final end of line',
      `${HEADER}${APPLICATION}\n[editor_plugins]\n\nother=1`,
      'line-eol',
    ],
    [
      'an empty list, no final end of line',
      `${HEADER}${APPLICATION}\n[editor_plugins]\n\nenabled=PackedStringArray()`,
      undefined,
    ],
  ])('adds and removes the plugin byte for byte: %s', (_label, before, created) => {
    const enabled = enableEditorPlugin(before, VALUE)!;
    expect(enabled.created).toBe(created);
    expect(enabled.text).toContain(`"${VALUE}"`);
    expect(enabled.text.split('[editor_plugins]')).toHaveLength(2);
    expect(enableEditorPlugin(enabled.text, VALUE)).toBeNull();
    expect(disableEditorPlugin(enabled.text, VALUE, enabled.created)).toBe(before);
  });

  it('puts a new section where Godot would, between the sections before and after it', () => {
    const text = enableEditorPlugin(`${HEADER}${APPLICATION}\n[rendering]\n\nx=1\n`, VALUE)!.text;
    expect(text).toBe(
      `${HEADER}${APPLICATION}\n[editor_plugins]\n\nenabled=PackedStringArray("${VALUE}")\n\n[rendering]\n\nx=1\n`,
    );
  });

  it('removes one plugin of several from the front, middle or end of the list', () => {
    const list = (...v: string[]) => `[editor_plugins]\n\nenabled=PackedStringArray(${v.map((x) => `"${x}"`).join(', ')})\n`;
    expect(disableEditorPlugin(list('a', 'b', 'c'), 'a')).toBe(list('b', 'c'));
    expect(disableEditorPlugin(list('a', 'b', 'c'), 'b')).toBe(list('a', 'c'));
    expect(disableEditorPlugin(list('a', 'b', 'c'), 'c')).toBe(list('a', 'b'));
    expect(disableEditorPlugin(list('a'), 'x')).toBe(list('a'));
  });

  it('keeps a created section that was given other keys since', () => {
    const before = `${HEADER}${APPLICATION}`;
    const enabled = enableEditorPlugin(before, VALUE)!;
    const edited = `${enabled.text}mine=1\n`;
    expect(disableEditorPlugin(edited, VALUE, 'section')).toBe(`${before}\n[editor_plugins]\n\nmine=1\n`);
  });
});

describe('Godot package layout', () => {
  const record = { name: 'com.a.dialog', version: '1.0.0', dist: {} as never };

  it('installs the one addons/<folder>/ as addons/<folder>/', () => {
    expect(godotEngine.installer!.layout(['package.json', 'README.md', 'addons/dialog/plugin.cfg'], record)).toEqual({
      source: 'addons/dialog',
      target: 'addons/dialog',
      exclude: [],
    });
  });

  it.each([
    [['package.json'], 'it has no addons/<folder>/'],
    [['package.json', 'addons/a/x.gd', 'addons/b/y.gd'], 'it has 2 folders in addons/'],
    [['package.json', 'scripts/x.gd'], "'scripts/x.gd' is outside addons/<folder>/"],
    [['package.json', 'addons/x.gd'], "'addons/x.gd' is outside addons/<folder>/"],
  ])('refuses %j', (files, problem) => {
    let error: unknown;
    try {
      godotEngine.installer!.layout(files, record);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).message).toBe(`com.a.dialog@1.0.0 is not a Godot package: ${problem}`);
  });

  it('tells generated files apart and keeps uids', () => {
    const { installer } = godotEngine;
    expect(['a.gd.import', 'a.gd.uid', 'b.en.translation', 'a.gd'].map((f) => installer!.isGenerated(f))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(installer!.keepsOnUpdate('a.gd.uid')).toBe(true);
    expect(installer!.keepsOnUpdate('a.gd.import')).toBe(false);
  });
});

describe('project.godot edits, property-tested', () => {
  const sectionName = fc.constantFrom('application', 'autoload', 'display', 'input', 'physics', 'rendering');
  const key = fc.stringMatching(/^[a-z][a-z_/]{0,10}$/);
  const plugin = fc.stringMatching(/^[a-z]{1,8}$/).map((f) => `res://addons/${f}/plugin.cfg`);
  // [editor_plugins]: absent, listing plugins, empty, or with other keys only.
  const editorPlugins = fc.oneof(
    fc.constant(undefined),
    fc.uniqueArray(plugin, { maxLength: 3 }),
    fc.constant('empty' as const),
    fc.constant('other keys' as const),
  );
  const file = fc.record({
    sections: fc.uniqueArray(sectionName, { maxLength: 4 }),
    keys: fc.array(key, { minLength: 1, maxLength: 3 }),
    plugins: editorPlugins,
    crlf: fc.boolean(),
    finalEol: fc.boolean(),
  });
  type File = {
    sections: string[];
    keys: string[];
    plugins: string[] | 'empty' | 'other keys' | undefined;
    crlf: boolean;
    finalEol: boolean;
  };

  function render(f: File): string {
    const names = [...f.sections, ...(f.plugins ? ['editor_plugins'] : [])].sort();
    const blocks = names.map((name) => {
      if (name !== 'editor_plugins') return `[${name}]\n\n${f.keys.map((k, i) => `${k}=${i}`).join('\n')}\n`;
      if (f.plugins === 'empty') return '[editor_plugins]\n';
      if (f.plugins === 'other keys') return '[editor_plugins]\n\nother=1\n';
      return `[editor_plugins]\n\nenabled=PackedStringArray(${(f.plugins as string[]).map((p) => `"${p}"`).join(', ')})\n`;
    });
    const joined = ['; Engine configuration file.\n\nconfig_version=5\n', ...blocks].join('\n');
    const text = f.finalEol ? joined : joined.slice(0, -1);
    return f.crlf ? text.replace(/\n/g, '\r\n') : text;
  }

  it('enabling a plugin lists it once, and disabling it gives back every byte', () => {
    fc.assert(
      fc.property(file, plugin, (f, value) => {
        fc.pre(!(Array.isArray(f.plugins) && f.plugins.includes(value)));
        const before = render(f);
        const enabled = enableEditorPlugin(before, value)!;
        expect(enabled.text.split(`"${value}"`)).toHaveLength(2);
        expect(enabled.text.match(/^\[editor_plugins\]/gm)).toHaveLength(1);
        expect(disableEditorPlugin(enabled.text, value, enabled.created)).toBe(before);
      }),
    );
  });
});
