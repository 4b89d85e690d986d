/**
 * Writing a manifest and reading a lock, the same for every engine: only the file names and the
 * lock's member differ (Unity's `Packages/`, or `pkg.json` beside a Godot or Unreal project).
 */
import path from 'node:path';
import type { ProjectFs } from '../files/project-fs.js';
import { ClientError } from '../errors/client-errors.js';
import type { ManifestFile } from './engine.js';

/** Engine.writeManifest for the manifest at `relative`, read back with `read`. */
export async function writeManifestAt(
  relative: string,
  read: (project: string, fs: ProjectFs) => Promise<ManifestFile>,
  project: string,
  text: string,
  fs: ProjectFs,
): Promise<ManifestFile> {
  await fs.writeTextAtomic(path.join(project, relative), text);
  const written = await read(project, fs);
  if (written.text !== text) {
    throw new ClientError('MANIFEST_READ_BACK', { manifest: relative });
  }
  return written;
}

/**
 * `{name: version}` of the lock at `relative`, whose `member` maps names to `{version}`; empty
 * when there is none, and when it cannot be read: this only shows what is installed (Unity
 * rewrites its own lock on the next resolve, and the commands that act on `pkg-lock.json`
 * report a broken one).
 */
export async function lockedVersionsAt(
  relative: string,
  member: string,
  project: string,
  fs: ProjectFs,
): Promise<Record<string, string>> {
  const text = await fs.readTextIfExists(path.join(project, relative));
  if (text === null) return {};
  try {
    const lock = JSON.parse(text) as Record<string, Record<string, { version?: unknown }> | undefined>;
    const resolved: Record<string, string> = {};
    for (const [name, entry] of Object.entries(lock[member] ?? {})) {
      if (typeof entry?.version === 'string') resolved[name] = entry.version;
    }
    return resolved;
  } catch {
    return {};
  }
}
