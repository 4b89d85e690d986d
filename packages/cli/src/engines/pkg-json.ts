/**
 * `pkg.json`, the package list of a Godot or Unreal project, beside `project.godot` or the
 * `.uproject`. Neither engine has a manifest of its own, so it is shaped like Unity's
 * `Packages/manifest.json` (`dependencies`, `scopedRegistries`) and read and edited by the same
 * code. A project without one has no packages yet: the first `pkg add` creates it.
 */
import path from 'node:path';
import type { ProjectFs } from '../files/project-fs.js';
import { ClientError } from '../errors/client-errors.js';
import type { Engine, ManifestFile } from './engine.js';
import { lockedVersionsAt, writeManifestAt } from './manifest-io.js';
import { editDependencyManifest, parseDependencyManifest } from './dependency-manifest.js';

export const PKG_JSON = 'pkg.json';
export const PKG_LOCK = 'pkg-lock.json';
/** What a new `pkg.json` starts as. */
export const EMPTY_PKG_JSON = '{\n  "dependencies": {}\n}\n';

export async function readPkgJson(project: string, fs: ProjectFs): Promise<ManifestFile> {
  const file = path.join(project, PKG_JSON);
  const text = (await fs.readTextIfExists(file)) ?? EMPTY_PKG_JSON;
  try {
    return { path: file, text, manifest: parseDependencyManifest(text) };
  } catch (error) {
    throw new ClientError('PKG_JSON_INVALID', {
      file: PKG_JSON,
      problem: (error as Error).message,
      path: path.join(project, PKG_JSON),
    });
  }
}

/** The manifest members of an engine whose packages `pkg` installs and locks. */
export const pkgJsonManifest: Pick<
  Engine,
  'manifestRelativePath' | 'readManifest' | 'editManifest' | 'writeManifest' | 'readResolvedVersions'
> = {
  manifestRelativePath: PKG_JSON,
  readManifest: readPkgJson,
  editManifest: (file, change) => editDependencyManifest(file.text, change),
  writeManifest: (project, text, fs) => writeManifestAt(PKG_JSON, readPkgJson, project, text, fs),
  /** What is installed: the versions in `pkg-lock.json`. */
  readResolvedVersions: (project, fs) => lockedVersionsAt(PKG_LOCK, 'packages', project, fs),
};
