import * as nodeFs from 'node:fs/promises';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTarball, rejected, removedAfterTest, sha512Integrity, tmpProject } from '@pkg/testkit';
import type { VersionRecord } from '@pkg/protocol';
import type { FileSystem } from '../../src/deps.js';
import { godotEngine } from '../../src/engines/godot/godot-engine.js';
import type { EngineInstaller } from '../../src/engines/installer.js';
import { projectFs } from '../../src/files/project-fs.js';
import { emptyLock, readLock, serializeLock, type LockFile } from '../../src/install/lock-file.js';
import { applyInstall, CachedTarballChanged, type PackageToInstall } from '../../src/install/staged-install.js';
import { expectedDigest } from '../../src/cache/integrity.js';
import { ClientError } from '../../src/errors/client-errors.js';

const PROJECT_GODOT = 'config_version=5\n\n[application]\n\nconfig/features=PackedStringArray("4.2")\n';
const engine = godotEngine as typeof godotEngine & { installer: EngineInstaller };

/** Tarballs are extracted from their file (as from the cache): each fixture's bytes are written to one. */
const tarballs = mkdtempSync(path.join(tmpdir(), 'pkg-tarballs-'));
afterAll(() => rm(tarballs, { recursive: true, force: true }));
function tarballFile(bytes: Buffer): string {
  const file = path.join(tarballs, `${randomUUID()}.tgz`);
  writeFileSync(file, bytes);
  return file;
}

function dialog(version: string, files: { path: string; content: string }[] = [], folder = 'dialog'): PackageToInstall {
  const name = `com.acme.${folder}`;
  const tarball = buildTarball({ name, version }, [
    { path: `addons/${folder}/plugin.cfg`, content: `[plugin]\n\nversion="${version}"\n` },
    ...files,
  ]);
  const record: VersionRecord = {
    name,
    version,
    dist: { tarball: `http://registry.test/${name}/-/${name}-${version}.tgz`, integrity: sha512Integrity(tarball), shasum: '' },
  };
  return { record, tarball: tarballFile(tarball) };
}

/** Every file below `dir` with its content: what "nothing changed" is compared with. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  return Object.fromEntries(
    await Promise.all(
      files.map(async (e) => [
        path.relative(dir, path.join(e.parentPath, e.name)),
        await readFile(path.join(e.parentPath, e.name), 'utf8'),
      ]),
    ),
  );
}

async function setup() {
  const project = await removedAfterTest(tmpProject('pkg-staged-', { 'project.godot': PROJECT_GODOT }));
  const backupRoot = await mkdtemp(path.join(tmpdir(), 'pkg-staged-backup-'));
  const tx = async (fs: FileSystem, install: PackageToInstall[], remove: string[] = [], force = false) => {
    const { lock } = await readLock(project.dir, projectFs(fs));
    return applyInstall({
      fs,
      projectFs: projectFs(fs),
      engine,
      project: project.dir,
      lock,
      install,
      remove,
      manifestText: `{\n  "dependencies": {}\n}\n`,
      force,
      backupRoot,
      now: new Date('2026-01-01T00:00:00Z'),
    });
  };
  return { project, tx };
}

const rejection = (promise: Promise<unknown>) => rejected(promise, ClientError);

/** The real file system, but the last step of an install, writing the lock, fails. */
const lockWriteFails: FileSystem = {
  ...nodeFs,
  rename: async (from, to) => {
    if (String(to).endsWith('pkg-lock.json')) throw new Error('disk full');
    return nodeFs.rename(from, to);
  },
};

describe('the staged install', () => {
  it('puts every folder and file back when the last step, writing the lock, fails', async () => {
    const { project, tx } = await setup();
    await tx(nodeFs, [dialog('1.0.0')]);
    await writeFile(project.path('addons/dialog/plugin.cfg.uid'), 'uid://x\n');
    const before = await snapshot(project.dir);

    const error = await rejection(
      tx(lockWriteFails, [dialog('2.0.0', [{ path: 'addons/dialog/new.gd', content: 'extends Node\n' }])]),
    );
    expect(error.code).toBe('APPLY_FAILED');
    expect(error.message).toBe(`Failed to install into ${project.dir}: disk full. Everything was put back as it was`);
    expect(error.hint).toMatch(/^The backup is in .*pkg-backup-2026-01-01T00-00-00-000Z(-\d+)?\.$/);
    expect(await snapshot(project.dir)).toEqual(before);
  });

  it('removes the addons/ folder it created when the first install into a project fails', async () => {
    const { project, tx } = await setup();
    const before = await snapshot(project.dir);
    expect((await rejection(tx(lockWriteFails, [dialog('1.0.0')]))).code).toBe('APPLY_FAILED');
    expect(await snapshot(project.dir)).toEqual(before);
    expect(await readdir(project.dir)).toEqual(['project.godot']);
  });

  it('refuses a tarball with an unsafe entry before touching the project', async () => {
    const { project, tx } = await setup();
    const before = await snapshot(project.dir);
    const evil = dialog('1.0.0', [{ path: 'package/../../evil.gd', content: 'x' }]);
    expect((await rejection(tx(nodeFs, [evil]))).code).toBe('UNSAFE_TARBALL');
    expect(await snapshot(project.dir)).toEqual(before);
  });

  it('checks a tarball not verified yet as it extracts it: one whose digest differs moves nothing', async () => {
    const { project, tx } = await setup();
    const before = await snapshot(project.dir);
    const good = dialog('1.0.0');
    const expected = expectedDigest(good.record.dist)!;
    // Another package's bytes in its place: a valid tarball, with another digest.
    const swapped = { ...good, tarball: dialog('1.0.1').tarball, unverified: expected };
    expect(
      await tx(nodeFs, [swapped]).then(
        () => null,
        (e: unknown) => e,
      ),
    ).toBeInstanceOf(CachedTarballChanged);
    expect(await snapshot(project.dir)).toEqual(before);
    // Bytes that are no tarball at all: the digest, not the gzip error, is what is reported.
    const garbage = { ...good, tarball: tarballFile(Buffer.from('not a tarball')), unverified: expected };
    expect(
      await tx(nodeFs, [garbage]).then(
        () => null,
        (e: unknown) => e,
      ),
    ).toBeInstanceOf(CachedTarballChanged);
    expect(await snapshot(project.dir)).toEqual(before);
    // The right bytes install as a verified tarball does.
    await tx(nodeFs, [{ ...good, unverified: expected }]);
    expect(await readFile(path.join(project.dir, 'addons/dialog/plugin.cfg'), 'utf8')).toContain('version="1.0.0"');
  });

  it('refuses a package whose folder another locked package owns', async () => {
    const { project, tx } = await setup();
    await tx(nodeFs, [dialog('1.0.0')]);
    const before = await snapshot(project.dir);
    const other = dialog('1.0.0');
    other.record = { ...other.record, name: 'com.other.dialog' };
    const error = await rejection(tx(nodeFs, [other]));
    expect(error.code).toBe('TARGET_EXISTS');
    expect(error.message).toBe('addons/dialog belongs to com.acme.dialog, which com.other.dialog would overwrite');
    expect(await snapshot(project.dir)).toEqual(before);
  });

  it('gives the project file back byte for byte when the package that created the plugin list leaves first', async () => {
    const { project, tx } = await setup();
    await tx(nodeFs, [dialog('1.0.0')]);
    await tx(nodeFs, [dialog('1.0.0', [], 'quest')]);
    expect(await project.read('project.godot')).toBe(
      `${PROJECT_GODOT}\n[editor_plugins]\n\nenabled=PackedStringArray("res://addons/dialog/plugin.cfg", "res://addons/quest/plugin.cfg")\n`,
    );
    await tx(nodeFs, [], ['com.acme.dialog']);
    const lock = JSON.parse(await project.read('pkg-lock.json'));
    expect(lock.packages['com.acme.quest'].projectEdits[0]).toMatchObject({ created: 'section' });
    await tx(nodeFs, [], ['com.acme.quest']);
    expect(await project.read('project.godot')).toBe(PROJECT_GODOT);
  });

  it('removes the addons/ folder with the last package when the first one created it, and records it in the lock meanwhile', async () => {
    const { project, tx } = await setup();
    await tx(nodeFs, [dialog('1.0.0')]);
    await tx(nodeFs, [dialog('1.0.0', [], 'quest')]);
    expect(JSON.parse(await project.read('pkg-lock.json')).createdFolders).toEqual(['addons']);
    await tx(nodeFs, [], ['com.acme.dialog']);
    expect(JSON.parse(await project.read('pkg-lock.json')).createdFolders).toEqual(['addons']);
    await tx(nodeFs, [], ['com.acme.quest']);
    expect(JSON.parse(await project.read('pkg-lock.json'))).toEqual({ lockfileVersion: 1, packages: {} });
    expect((await readdir(project.dir)).sort()).toEqual(['pkg-lock.json', 'pkg.json', 'project.godot']);
  });

  it('keeps an addons/ folder that was there before, or that holds something of the user’s', async () => {
    const { project, tx } = await setup();
    await nodeFs.mkdir(project.path('addons'));
    await tx(nodeFs, [dialog('1.0.0')]);
    expect(JSON.parse(await project.read('pkg-lock.json')).createdFolders).toBeUndefined();
    await tx(nodeFs, [], ['com.acme.dialog']);
    expect(await readdir(project.path('addons'))).toEqual([]);

    await nodeFs.rmdir(project.path('addons'));
    await tx(nodeFs, [dialog('1.0.0')]);
    await nodeFs.mkdir(project.path('addons/mine'));
    await writeFile(project.path('addons/mine/tool.gd'), 'extends Node\n');
    await tx(nodeFs, [], ['com.acme.dialog']);
    expect(await readdir(project.path('addons'))).toEqual(['mine']);
    expect(JSON.parse(await project.read('pkg-lock.json')).createdFolders).toBeUndefined();
  });

  it('keeps Godot’s uid files when a package is updated and drops its import files', async () => {
    const { project, tx } = await setup();
    await tx(nodeFs, [dialog('1.0.0')]);
    await writeFile(project.path('addons/dialog/plugin.cfg.uid'), 'uid://x\n');
    await writeFile(project.path('addons/dialog/icon.svg.import'), '[remap]\n');
    await tx(nodeFs, [dialog('1.1.0')]);
    expect(await project.read('addons/dialog/plugin.cfg')).toBe('[plugin]\n\nversion="1.1.0"\n');
    expect(await project.read('addons/dialog/plugin.cfg.uid')).toBe('uid://x\n');
    await expect(project.read('addons/dialog/icon.svg.import')).rejects.toThrow(/ENOENT/);
  });
});

describe('pkg-lock.json', () => {
  async function lockWith(packages: unknown) {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-lock-'));
    await writeFile(path.join(dir, 'pkg-lock.json'), JSON.stringify({ lockfileVersion: 1, packages }));
    return rejection(readLock(dir, projectFs(nodeFs)));
  }
  const entry = {
    version: '1.0.0',
    resolved: 'http://r/x.tgz',
    integrity: 'sha512-x',
    folder: 'addons/x',
    files: {},
    projectEdits: [],
  };

  it.each([
    [
      'a folder climbing out of the project',
      { ...entry, folder: '../outside' },
      'the folder of com.a.b is not a relative path inside the project',
    ],
    ['an absolute folder', { ...entry, folder: '/etc' }, 'the folder of com.a.b is not a relative path inside the project'],
    [
      'a file path with ..',
      { ...entry, files: { '../../x': 'sha256-x' } },
      'the files of com.a.b are not relative paths with digests',
    ],
    ['no version', { ...entry, version: 'latest' }, 'com.a.b has no valid version'],
  ])('refuses %s: the lock decides what is deleted', async (_label, value, problem) => {
    const error = await lockWith({ 'com.a.b': value });
    expect(error.code).toBe('LOCK_INVALID');
    expect(error.message).toBe(`pkg-lock.json is invalid: ${problem}`);
  });

  it('refuses createdFolders that are not relative paths inside the project', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pkg-lock-'));
    await writeFile(
      path.join(dir, 'pkg-lock.json'),
      JSON.stringify({ lockfileVersion: 1, packages: {}, createdFolders: ['../x'] }),
    );
    const error = await rejection(readLock(dir, projectFs(nodeFs)));
    expect(error.message).toBe('pkg-lock.json is invalid: "createdFolders" is not a list of relative paths inside the project');
  });

  it('is written with names and files sorted', () => {
    const lock: LockFile = emptyLock();
    lock.packages['com.b.b'] = { ...entry, files: { 'z.gd': 'sha256-z', 'a.gd': 'sha256-a' } };
    lock.packages['com.a.a'] = { ...entry };
    const text = serializeLock(lock);
    expect(Object.keys(JSON.parse(text).packages)).toEqual(['com.a.a', 'com.b.b']);
    expect(Object.keys(JSON.parse(text).packages['com.b.b'].files)).toEqual(['a.gd', 'z.gd']);
    expect(text.endsWith('}\n')).toBe(true);
  });
});

describe('hand edits', () => {
  it('stop a replace when a file was changed or added, name them, and go on with force; a deleted file stops nothing', async () => {
    const { project, tx } = await setup();
    await tx(nodeFs, [dialog('1.0.0', [{ path: 'addons/dialog/a.gd', content: 'a\n' }])]);
    await nodeFs.rm(project.path('addons/dialog/a.gd'));
    await tx(nodeFs, [dialog('1.1.0', [{ path: 'addons/dialog/a.gd', content: 'a\n' }])]);
    expect(await project.read('addons/dialog/a.gd')).toBe('a\n');

    await writeFile(project.path('addons/dialog/a.gd'), 'mine\n');
    await writeFile(project.path('addons/dialog/notes.txt'), 'mine\n');
    const before = await snapshot(project.dir);
    const error = await rejection(tx(nodeFs, [dialog('1.2.0')]));
    expect(error.code).toBe('LOCAL_CHANGES');
    expect(error.message).toBe(
      'Files of installed packages were changed by hand: addons/dialog/a.gd (modified), addons/dialog/notes.txt (added)',
    );
    expect(await snapshot(project.dir)).toEqual(before);

    const { backupPath } = await tx(nodeFs, [dialog('1.2.0')], [], true);
    expect(await readFile(path.join(backupPath!, 'addons/dialog/a.gd'), 'utf8')).toBe('mine\n');
    expect(await readFile(path.join(backupPath!, 'addons/dialog/notes.txt'), 'utf8')).toBe('mine\n');
    await expect(project.read('addons/dialog/notes.txt')).rejects.toThrow(/ENOENT/);
  });
});
