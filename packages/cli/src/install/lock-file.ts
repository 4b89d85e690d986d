/**
 * `pkg-lock.json`: what `pkg` installed into a Godot or Unreal project, exactly enough to
 * install it again on another machine and to tell the user's edits from the package's files.
 * Written last by every change, so it only ever describes a completed install.
 */
import path from 'node:path';
import { isPackageName, isSemver } from '@pkg/protocol';
import type { ProjectFs } from '../files/project-fs.js';
import type { ProjectEdit } from '../engines/installer.js';
import { PKG_LOCK } from '../engines/pkg-json.js';
import { ClientError } from '../errors/client-errors.js';

export const LOCKFILE_VERSION = 1;

/** A project-file edit with the file it was made in. */
export interface LockedEdit extends ProjectEdit {
  file: string;
}

export interface LockedPackage {
  version: string;
  /** The tarball's URL. */
  resolved: string;
  /** The tarball's Subresource Integrity value, checked on every download. */
  integrity: string;
  /** The dependencies the version declares: the lock alone knows what a package brought in. */
  dependencies?: Record<string, string>;
  /** The project folder holding its files (`addons/dialog`, `Plugins/Dialog`). */
  folder: string;
  /** Every installed file, relative to `folder`, with its `sha256-<base64>` digest. */
  files: Record<string, string>;
  /** The edits made to the project file to enable it. */
  projectEdits: LockedEdit[];
}

export interface LockFile {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
  /**
   * Folders `pkg` created to hold packages' folders (`addons`, `Plugins`), removed again when
   * the last package in them leaves and they are empty: uninstalling everything gives back the
   * project as it was.
   */
  createdFolders?: string[];
}

export function emptyLock(): LockFile {
  return { lockfileVersion: LOCKFILE_VERSION, packages: {} };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringMap = (v: unknown): v is Record<string, string> =>
  isObject(v) && Object.values(v).every((x) => typeof x === 'string');

/** A folder or file path as the lock holds it: relative, `/`-separated, nothing climbing out. */
export function isSafeRelative(p: unknown): p is string {
  return (
    typeof p === 'string' &&
    p.length > 0 &&
    !p.includes('\\') &&
    !p.includes('\0') &&
    !p.startsWith('/') &&
    !/^[A-Za-z]:/.test(p) &&
    p.split('/').every((s) => s !== '' && s !== '.' && s !== '..')
  );
}

/** Why a parsed lock is unusable; null when it is fine. Paths are checked: the lock decides what is deleted. */
function lockProblem(value: unknown): string | null {
  if (!isObject(value)) return 'it is not a JSON object';
  if (value.lockfileVersion !== LOCKFILE_VERSION)
    return `lockfileVersion ${JSON.stringify(value.lockfileVersion)} is not ${LOCKFILE_VERSION}`;
  if (!isObject(value.packages)) return '"packages" is not an object';
  if (value.createdFolders !== undefined && !(Array.isArray(value.createdFolders) && value.createdFolders.every(isSafeRelative)))
    return '"createdFolders" is not a list of relative paths inside the project';
  for (const [name, entry] of Object.entries(value.packages)) {
    if (!isPackageName(name)) return `'${name}' is not a package name`;
    if (!isObject(entry)) return `the entry of ${name} is not an object`;
    if (!isSemver(entry.version)) return `${name} has no valid version`;
    if (typeof entry.resolved !== 'string' || typeof entry.integrity !== 'string')
      return `${name} has no tarball URL or integrity`;
    if (entry.dependencies !== undefined && !isStringMap(entry.dependencies))
      return `the dependencies of ${name} are not a map of strings`;
    if (!isSafeRelative(entry.folder)) return `the folder of ${name} is not a relative path inside the project`;
    if (!isStringMap(entry.files) || !Object.keys(entry.files).every(isSafeRelative))
      return `the files of ${name} are not relative paths with digests`;
    if (!Array.isArray(entry.projectEdits)) return `the projectEdits of ${name} are not a list`;
    for (const edit of entry.projectEdits as unknown[]) {
      if (!isObject(edit) || typeof edit.file !== 'string' || typeof edit.kind !== 'string' || typeof edit.value !== 'string') {
        return `a project edit of ${name} is malformed`;
      }
    }
  }
  return null;
}

/** The lock and its exact text (null when the project has none). */
export async function readLock(project: string, fs: ProjectFs): Promise<{ lock: LockFile; text: string | null }> {
  const text = await fs.readTextIfExists(path.join(project, PKG_LOCK));
  if (text === null) return { lock: emptyLock(), text: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ClientError('LOCK_INVALID', { lock: PKG_LOCK, problem: `it is not valid JSON (${(err as Error).message})` });
  }
  const problem = lockProblem(value);
  if (problem) throw new ClientError('LOCK_INVALID', { lock: PKG_LOCK, problem });
  return { lock: value as LockFile, text };
}

/** The lock's text: names sorted, two-space JSON, so that it diffs well under version control. */
export function serializeLock(lock: LockFile): string {
  const sortKeys = <T>(o: Record<string, T>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const packages = Object.fromEntries(
    Object.entries(sortKeys(lock.packages)).map(([name, p]) => [name, { ...p, files: sortKeys(p.files) }]),
  );
  const created =
    lock.createdFolders && lock.createdFolders.length > 0 ? { createdFolders: [...lock.createdFolders].sort() } : {};
  return `${JSON.stringify({ lockfileVersion: lock.lockfileVersion, packages, ...created }, null, 2)}\n`;
}

/** A package `pkg install` restored from the lock, as its report lists it. */
export interface RestoredPackage {
  package: string;
  version: string;
  /** `installed` from the lock, or `in-place` (already matching it). */
  status: 'installed' | 'in-place';
  cached: boolean;
}
