/**
 * A change killed at any point of its work leaves the project so that the next run, which
 * calls recoverInterrupted under the project's lock, gives back the project as it was before
 * the change, or as the change made it when it had written its lock: byte for byte, folders
 * included, and no staging folder left.
 */
import * as nodeFs from 'node:fs/promises';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildTarball, sha512Integrity, tmpProject, type TmpUnityProject } from '@pkg/testkit';
import type { VersionRecord } from '@pkg/protocol';
import type { FileSystem } from '../../src/deps.js';
import { godotEngine } from '../../src/engines/godot/godot-engine.js';
import type { EngineInstaller } from '../../src/engines/installer.js';
import { projectFs } from '../../src/files/project-fs.js';
import { recoverInterrupted } from '../../src/install/interrupted-install.js';
import { readLock } from '../../src/install/lock-file.js';
import { applyInstall, type PackageToInstall } from '../../src/install/staged-install.js';

const PROJECT_GODOT = 'config_version=5\n\n[application]\n\nconfig/features=PackedStringArray("4.2")';
const engine = godotEngine as typeof godotEngine & { installer: EngineInstaller };

/** Tarballs are extracted from their file (as from the cache): each fixture's bytes are written to one. */
const tarballs = mkdtempSync(path.join(tmpdir(), 'pkg-tarballs-'));
afterAll(() => rm(tarballs, { recursive: true, force: true }));
function tarballFile(bytes: Buffer): string {
  const file = path.join(tarballs, `${randomUUID()}.tgz`);
  writeFileSync(file, bytes);
  return file;
}

const cleanup: TmpUnityProject[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((p) => p.remove()));
});

function godotPackage(folder: string, version: string): PackageToInstall {
  const name = `com.acme.${folder}`;
  const tarball = buildTarball({ name, version }, [
    { path: `addons/${folder}/plugin.cfg`, content: `[plugin]\n\nversion="${version}"\n` },
    { path: `addons/${folder}/${folder}.gd`, content: `extends Node # ${version}\n` },
  ]);
  const record: VersionRecord = {
    name,
    version,
    dist: { tarball: `http://registry.test/${name}-${version}.tgz`, integrity: sha512Integrity(tarball), shasum: '' },
  };
  return { record, tarball: tarballFile(tarball) };
}

/** Every file with its content and every folder (`name/`), sorted: empty folders count too. */
async function tree(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const result: Record<string, string> = {};
  for (const e of entries) {
    const relative = path.relative(dir, path.join(e.parentPath, e.name));
    result[e.isDirectory() ? `${relative}/` : relative] = e.isDirectory()
      ? ''
      : await readFile(path.join(e.parentPath, e.name), 'utf8');
  }
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => (a < b ? -1 : 1)));
}

class Killed extends Error {}

/** The real file system, until the `limit`-th call: from then on the process is dead, and nothing more happens. */
function killedAt(limit: number): { fs: FileSystem; killed: () => boolean } {
  let calls = 0;
  const fs = new Proxy(nodeFs, {
    get(target, key) {
      const real = Reflect.get(target, key) as unknown;
      if (typeof real !== 'function') return real;
      return (...args: unknown[]) => {
        calls++;
        if (calls >= limit) return Promise.reject(new Killed('killed'));
        return (real as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as unknown as FileSystem;
  return { fs, killed: () => calls >= limit };
}

interface Scenario {
  /** The packages installed before the change (through a change that completes). */
  before: PackageToInstall[];
  install: PackageToInstall[];
  remove: string[];
  /** Files the engine wrote into installed folders since. */
  generated?: Record<string, string>;
}

async function run(scenario: Scenario) {
  const backupRoot = await mkdtemp(path.join(tmpdir(), 'pkg-interrupted-backup-'));
  let runs = 0;
  const apply = async (fs: FileSystem, dir: string, install: PackageToInstall[], remove: string[], manifest: string) =>
    applyInstall({
      fs,
      projectFs: projectFs(fs),
      engine,
      project: dir,
      lock: (await readLock(dir, projectFs(nodeFs))).lock,
      install,
      remove,
      manifestText: manifest,
      force: false,
      // A backup folder of its own each time: the same number of calls for each run.
      backupRoot: path.join(backupRoot, String(runs++)),
      now: new Date('2026-01-01T00:00:00Z'),
    });
  const fresh = async () => {
    const project = await tmpProject('pkg-interrupted-', { 'project.godot': PROJECT_GODOT });
    cleanup.push(project);
    if (scenario.before.length > 0) await apply(nodeFs, project.dir, scenario.before, [], '{"dependencies": {"a": "1"}}\n');
    for (const [file, content] of Object.entries(scenario.generated ?? {})) await writeFile(project.path(file), content);
    return project;
  };
  try {
    // The change run to its end: the other state a killed run may leave.
    const reference = await fresh();
    const before = await tree(reference.dir);
    await apply(nodeFs, reference.dir, scenario.install, scenario.remove, '{"dependencies": {"b": "2"}}\n');
    const after = await tree(reference.dir);
    expect(after).not.toEqual(before);

    let outcomes = { before: 0, after: 0 };
    for (let limit = 1; ; limit++) {
      const project = await fresh();
      const { fs, killed } = killedAt(limit);

      const error = await apply(fs, project.dir, scenario.install, scenario.remove, '{"dependencies": {"b": "2"}}\n').then(
        () => null,
        (e: unknown) => e,
      );
      if (!killed()) {
        expect(error).toBeNull();
        break;
      }
      await recoverInterrupted(nodeFs, projectFs(nodeFs), project.dir);
      const state = await tree(project.dir);
      const lock = await readFile(project.path('pkg-lock.json'), 'utf8').catch(() => null);
      const completed = lock === after['pkg-lock.json'];
      expect(state, `killed at file system call ${limit}`).toEqual(completed ? after : before);
      outcomes = completed ? { ...outcomes, after: outcomes.after + 1 } : { ...outcomes, before: outcomes.before + 1 };
      await rm(project.dir, { recursive: true, force: true });
    }
    // Killed both before and after the lock was written: both ends were checked.
    expect(outcomes.before).toBeGreaterThan(5);
    expect(outcomes.after).toBeGreaterThan(0);
  } finally {
    await rm(backupRoot, { recursive: true, force: true });
  }
}

describe('a change killed at any file system call', () => {
  it('updating one package, adding one and removing one: recovered to before or after, byte for byte', async () => {
    await run({
      before: [godotPackage('dialog', '1.0.0'), godotPackage('menu', '1.0.0')],
      install: [godotPackage('dialog', '2.0.0'), godotPackage('inventory', '1.0.0')],
      remove: ['com.acme.menu'],
      generated: { 'addons/dialog/dialog.gd.uid': 'uid://abc\n' },
    });
  });

  it('the first install into a project without addons/: the folder it created goes again', async () => {
    await run({ before: [], install: [godotPackage('dialog', '1.0.0')], remove: [] });
  });

  it('removing the last package: the addons/ folder it created goes, or comes back', async () => {
    await run({ before: [godotPackage('dialog', '1.0.0')], install: [], remove: ['com.acme.dialog'] });
  });

  it('follows no journal whose paths leave the project, and no staging link: it only removes them', async () => {
    const outside = await tmpProject('pkg-interrupted-outside-', { 'keep.txt': 'mine\n', 'old-0/x.txt': 'x\n' });
    const project = await tmpProject('pkg-interrupted-', { 'project.godot': PROJECT_GODOT });
    cleanup.push(outside, project);
    const journal = {
      projectFile: 'project.godot',
      projectText: 'overwritten',
      manifestText: null,
      lockText: 'x',
      movedAside: [],
      placed: [path.relative(project.dir, outside.dir)],
      createdParents: [],
      mayRemove: [],
    };
    await nodeFs.mkdir(project.path('.pkg-staging-000000000001'));
    await writeFile(project.path('.pkg-staging-000000000001/journal.json'), JSON.stringify(journal));
    await nodeFs.symlink(outside.dir, project.path('.pkg-staging-000000000002'));
    const result = await recoverInterrupted(nodeFs, projectFs(nodeFs), project.dir);
    expect(result).toEqual({ rolledBack: 0, removed: 2 });
    expect(await tree(outside.dir)).toEqual({ 'keep.txt': 'mine\n', 'old-0/': '', 'old-0/x.txt': 'x\n' });
    expect(await tree(project.dir)).toEqual({ 'project.godot': PROJECT_GODOT });
  });
});
