import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** File path (relative, `/`-separated) → content; an object is written as 2-space JSON, null leaves the file out. */
export type ProjectFiles = Record<string, string | Buffer | object | null>;

export interface TmpUnityProject {
  dir: string;
  /** Absolute path of a project file. */
  path(relative: string): string;
  read(relative: string): Promise<string>;
  remove(): Promise<void>;
}

export function projectVersionTxt(editorVersion: string): string {
  return `m_EditorVersion: ${editorVersion}\nm_EditorVersionWithRevision: ${editorVersion} (0123456789ab)\n`;
}

/**
 * A Unity project built by code in a fresh temp folder: `Assets/`, `ProjectSettings/` with
 * `ProjectVersion.txt` (2022.3.10f1) and `Packages/manifest.json` (no dependencies), overridden
 * or extended by `files`. A key ending in `/` makes an empty folder.
 */
export async function tmpUnityProject(files: ProjectFiles = {}): Promise<TmpUnityProject> {
  return tmpProject('pkg-unity-project-', {
    'Assets/': '',
    'ProjectSettings/ProjectVersion.txt': projectVersionTxt('2022.3.10f1'),
    'Packages/manifest.json': { dependencies: {} },
    ...files,
  });
}

/** A project of any engine: `files` written into a fresh temp folder (see `ProjectFiles`). */
export async function tmpProject(prefix: string, all: ProjectFiles): Promise<TmpUnityProject> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  for (const [relative, content] of Object.entries(all)) {
    if (content === null) continue;
    const target = path.join(dir, ...relative.split('/'));
    if (relative.endsWith('/')) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const data = typeof content === 'string' || Buffer.isBuffer(content) ? content : `${JSON.stringify(content, null, 2)}\n`;
    await writeFile(target, data);
  }
  return {
    dir,
    path: (relative) => path.join(dir, ...relative.split('/')),
    read: (relative) => readFile(path.join(dir, ...relative.split('/')), 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** `made`, removed when the running test finishes: a project per test, with no list to clean. */
export async function removedAfterTest<T extends { remove(): Promise<void> }>(made: Promise<T>): Promise<T> {
  const project = await made;
  // Imported here, not at the top: testkit is also used outside vitest (bench/).
  const { onTestFinished } = await import('vitest');
  onTestFinished(() => project.remove());
  return project;
}
