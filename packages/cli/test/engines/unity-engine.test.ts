import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectVersionTxt, rejected, removedAfterTest, tmpUnityProject, type ProjectFiles } from '@pkg/testkit';
import { ENGINES, selectEngine } from '../../src/engines/index.js';
import { ClientError } from '../../src/errors/client-errors.js';
import { editorVersionFromProjectVersionTxt } from '../../src/engines/unity/project-version.js';
import { unityEngine } from '../../src/engines/unity/unity-engine.js';
import * as nodeFs from 'node:fs/promises';
import { projectFs } from '../../src/files/project-fs.js';

const fs = projectFs(nodeFs);
const project = (files: ProjectFiles = {}) => removedAfterTest(tmpUnityProject(files));

const rejection = (promise: Promise<unknown>) => rejected(promise, ClientError);

describe('editorVersionFromProjectVersionTxt', () => {
  it.each([
    [projectVersionTxt('6000.0.23f1'), '6000.0.23f1'],
    ['m_EditorVersion: 2022.3.62f3c1\r\nm_EditorVersionWithRevision: 2022.3.62f3c1 (x)\r\n', '2022.3.62f3c1'],
    ['m_EditorVersionWithRevision: 2022.3.1f1 (x)\n', null],
    ['', null],
  ])('%j → %j', (text, expected) => {
    expect(editorVersionFromProjectVersionTxt(text)).toBe(expected);
  });
});

describe('the Unity engine', () => {
  it('detects a project by Assets/, ProjectSettings/ and Packages/manifest.json', async () => {
    expect(await unityEngine.detect((await project()).dir, fs)).toBe(true);
    expect(await unityEngine.detect((await project({ 'Assets/': null })).dir, fs)).toBe(false);
    expect(await unityEngine.detect((await project({ 'Packages/manifest.json': null })).dir, fs)).toBe(false);
    expect(await unityEngine.detect((await project({ 'ProjectSettings/ProjectVersion.txt': null })).dir, fs)).toBe(false);
  });

  it('reads the editor version, and says why when it cannot', async () => {
    expect(await unityEngine.readEngineVersion((await project()).dir, fs)).toEqual({ text: '2022.3.10f1' });
    const missing = await project({ 'ProjectSettings/ProjectVersion.txt': null, 'ProjectSettings/': '' });
    expect(await unityEngine.readEngineVersion(missing.dir, fs)).toEqual({
      text: null,
      warning: `${path.join('ProjectSettings', 'ProjectVersion.txt')} not found: editor compatibility is not checked`,
    });
    const odd = await project({ 'ProjectSettings/ProjectVersion.txt': 'm_EditorVersion: 2022.3\n' });
    expect(await unityEngine.readEngineVersion(odd.dir, fs)).toEqual({
      text: '2022.3',
      warning: "unrecognised editor version '2022.3': editor compatibility is not checked",
    });
  });

  it('checks compatibility against the editor, and not at all when the version is unknown', () => {
    const record = { name: 'com.a.b', version: '1.0.0', unity: '2023.1', dist: { tarball: '', integrity: '', shasum: '' } };
    expect(unityEngine.isCompatible(record, { text: '2022.3.10f1' })).toBe(false);
    expect(unityEngine.isCompatible(record, { text: '2023.1.0f1' })).toBe(true);
    expect(unityEngine.isCompatible(record, { text: null })).toBe(true);
    expect(unityEngine.isCompatible({ ...record, unity: 2023 as unknown as string }, { text: '2023.1.0f1' })).toBe(false);
    expect(unityEngine.requirementOf({ ...record, unityRelease: '5f1' })).toBe('2023.1.5f1');
    expect(unityEngine.requirementOf({ ...record, unity: undefined })).toBeNull();
  });

  it('never takes a version for Godot or Unreal only for a Unity package, as the registry does not', () => {
    const record = { name: 'com.a.b', version: '1.0.0', dist: { tarball: '', integrity: '', shasum: '' } };
    for (const version of ['2023.1.0f1', null]) {
      expect(unityEngine.isCompatible(record, { text: version })).toBe(true);
      expect(unityEngine.isCompatible({ ...record, godot: '4.2' }, { text: version })).toBe(false);
      expect(unityEngine.isCompatible({ ...record, unreal: '5.3', unrealMax: '5.3' }, { text: version })).toBe(false);
      expect(unityEngine.isCompatible({ ...record, unity: '2022.3', godot: '4.2' }, { text: version })).toBe(true);
    }
    expect(unityEngine.requirementOf({ ...record, godot: '4.2', unreal: '5.3' })).toBe(
      'Unity support (it is for Godot and Unreal Engine only)',
    );
  });

  it('reads and validates the manifest, naming the file when it is wrong', async () => {
    const p = await project({ 'Packages/manifest.json': { dependencies: { 'com.vendor.a': '1.0.0' } } });
    const file = await unityEngine.readManifest(p.dir, fs);
    expect(file.manifest.dependencies).toEqual({ 'com.vendor.a': '1.0.0' });
    expect(file.text).toBe(await p.read('Packages/manifest.json'));

    const broken = await project({ 'Packages/manifest.json': '{"dependencies": ' });
    expect((await rejection(unityEngine.readManifest(broken.dir, fs))).message).toMatch(
      /^Packages.manifest\.json is invalid: it is not valid JSON/,
    );
    const none = await project({ 'Packages/manifest.json': null });
    expect((await rejection(unityEngine.readManifest(none.dir, fs))).message).toBe(
      `${path.join('Packages', 'manifest.json')} not found in ${none.dir}`,
    );
  });

  it('writes the manifest atomically and reads it back', async () => {
    const p = await project();
    const text = '{\r\n    "dependencies": {\r\n        "com.vendor.a": "1.0.0"\r\n    }\r\n}';
    const written = await unityEngine.writeManifest(p.dir, text, fs);
    expect(written.manifest.dependencies).toEqual({ 'com.vendor.a': '1.0.0' });
    expect(await p.read('Packages/manifest.json')).toBe(text);
    await expect(unityEngine.writeManifest(p.dir, '{"dependencies": []}', fs)).rejects.toThrow('is invalid');
  });

  it('reads resolved versions from packages-lock.json when present', async () => {
    const lock = { dependencies: { 'com.vendor.a': { version: '1.2.0', depth: 0, source: 'registry' }, 'com.vendor.b': {} } };
    expect(await unityEngine.readResolvedVersions((await project({ 'Packages/packages-lock.json': lock })).dir, fs)).toEqual({
      'com.vendor.a': '1.2.0',
    });
    expect(await unityEngine.readResolvedVersions((await project()).dir, fs)).toEqual({});
    expect(await unityEngine.readResolvedVersions((await project({ 'Packages/packages-lock.json': '{' })).dir, fs)).toEqual({});
  });
});

describe('selectEngine', () => {
  it('finds the project from a folder inside it', async () => {
    const p = await project();
    const inside = p.path('Assets/Scripts/Deep');
    await mkdir(inside, { recursive: true });
    expect(await selectEngine(inside, fs)).toEqual({ engine: unityEngine, project: p.dir });
  });

  it('says no engine was detected outside a project', async () => {
    const p = await project({ 'Assets/': null, 'ProjectSettings/ProjectVersion.txt': null, 'Packages/manifest.json': null });
    const error = await rejection(selectEngine(p.dir, fs));
    expect(error.message).toBe('no supported engine detected. Please specify --engine <engine>');
    expect(error.exitCode).toBe(1);
  });

  it('--engine forces one even when the layout is incomplete', async () => {
    const p = await project({ 'Assets/': null });
    expect(await selectEngine(p.dir, fs, 'unity')).toEqual({ engine: unityEngine, project: p.dir });
    expect(await selectEngine(p.dir, fs, 'Unity')).toEqual({ engine: unityEngine, project: p.dir });
  });

  it('refuses an unknown --engine as wrong usage, listing the supported ones', async () => {
    const error = await rejection(selectEngine('.', fs, 'cryengine'));
    expect(error.message).toBe("Unknown engine 'cryengine'");
    expect(error.exitCode).toBe(2);
    expect(error.hint).toBe(`Supported engines: ${ENGINES.map((e) => e.id).join(', ')}`);
  });
});
