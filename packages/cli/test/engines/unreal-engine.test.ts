import * as nodeFs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { rejected, removedAfterTest, tmpProject, type ProjectFiles } from '@pkg/testkit';
import { selectEngine } from '../../src/engines/index.js';
import { unrealEngine } from '../../src/engines/unreal/unreal-engine.js';
import { disableUnrealPlugin, enableUnrealPlugin } from '../../src/engines/unreal/uproject.js';
import { projectFs } from '../../src/files/project-fs.js';
import { ClientError } from '../../src/errors/client-errors.js';

const fs = projectFs(nodeFs);
const project = (files: ProjectFiles) => removedAfterTest(tmpProject('pkg-unreal-unit-', files));

const rejection = (promise: Promise<unknown>) => rejected(promise, ClientError);

const uproject = (association: string, plugins = '') =>
  `{\n\t"FileVersion": 3,\n\t"EngineAssociation": "${association}",\n\t"Category": "",\n\t"Description": ""${plugins}\n}`;

describe('Unreal Engine 5 projects', () => {
  it('are found by a .uproject, walking up, and read EngineAssociation', async () => {
    const p = await project({ 'Arena.uproject': uproject('5.3'), 'Source/Arena/': '' });
    expect(await selectEngine(p.path('Source/Arena'), fs)).toEqual({ engine: unrealEngine, project: p.dir });
    expect(await unrealEngine.readEngineVersion(p.dir, fs)).toEqual({ text: '5.3' });
  });

  it.each([
    [
      'a GUID',
      '{E1C4A0B2-4F3C-4B1D-9A8E-2C5D7F6A1B3C}',
      "Arena.uproject has EngineAssociation '{E1C4A0B2-4F3C-4B1D-9A8E-2C5D7F6A1B3C}', which is not an engine version",
    ],
    ['an empty association', '', 'Arena.uproject has an empty EngineAssociation, which is not an engine version'],
  ])('need the version given for %s', async (_label, association, message) => {
    const p = await project({ 'Arena.uproject': uproject(association) });
    const error = await rejection(unrealEngine.readEngineVersion(p.dir, fs));
    expect(error.code).toBe('ENGINE_VERSION_REQUIRED');
    expect(error.message).toBe(message);
    expect(error.hint).toContain('--engine-version');
  });

  it('refuse a folder with two .uproject files, naming them', async () => {
    const p = await project({ 'A.uproject': uproject('5.3'), 'B.uproject': uproject('5.3') });
    const error = await rejection(unrealEngine.readEngineVersion(p.dir, fs));
    expect(error.code).toBe('UNREAL_PROJECT_AMBIGUOUS');
    expect(error.message).toBe(`${p.dir} holds 2 .uproject files (A.uproject, B.uproject); pkg needs exactly one`);
  });

  it('refuse --engine unreal where there is no .uproject', async () => {
    const p = await project({ 'pkg.json': '{}' });
    const error = await rejection(unrealEngine.readEngineVersion(p.dir, fs));
    expect(error.code).toBe('MANIFEST_NOT_FOUND');
    expect(error.message).toBe(`No .uproject file in ${p.dir}`);
  });

  it('report a .uproject that is not JSON', async () => {
    const p = await project({ 'Arena.uproject': '{ "FileVersion": 3,' });
    expect((await rejection(unrealEngine.readEngineVersion(p.dir, fs))).code).toBe('MANIFEST_INVALID');
  });

  it('lay a package out as Plugins/<Name>/ without its package.json, and refuse one without a single .uplugin', () => {
    const record = { name: 'com.a.barks', version: '1.0.0', dist: {} as never };
    expect(unrealEngine.installer!.layout(['Barks.uplugin', 'package.json', 'Source/Barks/Barks.cpp'], record)).toEqual({
      source: '',
      target: 'Plugins/Barks',
      exclude: ['package.json'],
    });
    expect(() => unrealEngine.installer!.layout(['package.json', 'Source/x.cpp'], record)).toThrow(
      'com.a.barks@1.0.0 is not an Unreal package: it has 0 .uplugin files at its root, not one',
    );
    expect(() => unrealEngine.installer!.layout(['package.json', 'Bad-Name.uplugin'], record)).toThrow(
      "com.a.barks@1.0.0 is not an Unreal package: 'Bad-Name' is not a valid plugin name",
    );
  });
});

describe('.uproject edits', () => {
  const plugins = (entries: string) => `,\n\t"Plugins": [\n${entries}\n\t]`;
  const entry = (name: string, enabled: string) => `\t\t{\n\t\t\t"Name": "${name}",\n\t\t\t"Enabled": ${enabled}\n\t\t}`;

  it.each([
    ['no Plugins', uproject('5.3'), 'plugins'],
    ['other plugins', uproject('5.3', plugins(entry('Water', 'true'))), undefined],
    ['an empty Plugins', uproject('5.3', ',\n\t"Plugins": []'), undefined],
    ['CRLF and a BOM', `\uFEFF${uproject('5.3', plugins(entry('Water', 'true')))}`.replace(/\n/g, '\r\n'), undefined],
  ])('adds {"Name", "Enabled": true} with tabs and removes it byte for byte: %s', (_label, before, created) => {
    const enabled = enableUnrealPlugin(before, 'Barks')!;
    expect(enabled.created).toBe(created);
    expect(enabled.text).toContain('\t\t\t"Name": "Barks",');
    expect(enableUnrealPlugin(enabled.text, 'Barks')).toBeNull();
    expect(disableUnrealPlugin(enabled.text, 'Barks', enabled)).toBe(before);
  });

  it('switches a disabled entry on, and back off on removal', () => {
    const before = uproject('5.3', plugins(entry('Barks', 'false')));
    const enabled = enableUnrealPlugin(before, 'Barks')!;
    expect(enabled).toMatchObject({ previous: false });
    expect(enabled.text).toBe(uproject('5.3', plugins(entry('Barks', 'true'))));
    expect(disableUnrealPlugin(enabled.text, 'Barks', enabled)).toBe(before);
  });
});
