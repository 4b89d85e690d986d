/**
 * What every package, and a Unity package in particular, must be before it is published, checked before any network traffic. Pure:
 * it reads the parsed package.json and the list of files that would be packed.
 */
import { checkPackageName, dependencyFieldsProblem, isUnityMinVersion, isUnityRelease } from '@pkg/protocol';
import semver from 'semver';

/**
 * Unity does not import these (and so wants no `.meta` for them): hidden names, names ending in
 * `~` (`Samples~`, `Documentation~`), `cvs`, and `*.tmp` — nor anything inside such a folder.
 */
function ignoredByUnity(relativePath: string): boolean {
  return relativePath
    .split('/')
    .some(
      (segment) =>
        segment.startsWith('.') || segment.endsWith('~') || segment.toLowerCase() === 'cvs' || segment.endsWith('.tmp'),
    );
}

/** Problems with the package.json fields every package needs, whatever its engine. */
export function commonProblems(manifest: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { name, version } = manifest;
  const nameCheck = checkPackageName(name);
  if (!nameCheck.ok) problems.push(`"name" ${JSON.stringify(name ?? null)} is not valid: ${nameCheck.rule}`);
  if (typeof version !== 'string' || semver.valid(version) !== version) {
    problems.push(`"version" ${JSON.stringify(version ?? null)} is not a semver version such as 1.2.0`);
  }
  return problems;
}

/** Problems with the package.json fields the Unity Package Manager relies on. */
export function unityFieldProblems(manifest: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { unity, unityRelease, displayName } = manifest;
  if (unity !== undefined && !isUnityMinVersion(unity)) {
    problems.push(`"unity" ${JSON.stringify(unity)} is not <major>.<minor> as Unity writes it, such as 2022.3`);
  }
  if (unityRelease !== undefined) {
    if (unity === undefined) problems.push('"unityRelease" is given without "unity"');
    else if (unityRelease !== '' && !isUnityRelease(unityRelease)) {
      problems.push(`"unityRelease" ${JSON.stringify(unityRelease)} is not a release as Unity writes it, such as 10f1 or 0b4`);
    }
  }
  if (typeof displayName !== 'string' || displayName.trim() === '') {
    problems.push('"displayName" is missing: the Unity Package Manager shows it as the package\'s name');
  }
  // The registry refuses the same (422); saying so here saves the upload.
  const dependencyProblem = dependencyFieldsProblem(manifest);
  if (dependencyProblem) problems.push(dependencyProblem);
  return problems;
}

/**
 * Every file and folder Unity imports needs its `.meta` (Unity generates one otherwise, with a new
 * GUID on every user's machine, and the import breaks for everyone), and a `.meta` without its
 * file or folder is an orphan Unity warns about.
 */
export function metaProblems(files: readonly string[]): string[] {
  const packed = new Set(files);
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const problems: string[] = [];
  const assets = [...[...folders].map((f) => ({ path: f, folder: true })), ...files.map((f) => ({ path: f, folder: false }))]
    .filter((a) => !a.path.endsWith('.meta') && !ignoredByUnity(a.path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const asset of assets) {
    if (!packed.has(`${asset.path}.meta`)) {
      problems.push(`${asset.folder ? 'folder' : 'file'} ${asset.path} has no ${asset.path}.meta`);
    }
  }
  for (const file of [...files].sort()) {
    if (!file.endsWith('.meta') || ignoredByUnity(file)) continue;
    const owner = file.slice(0, -'.meta'.length);
    if (!packed.has(owner) && !folders.has(owner)) problems.push(`${file} belongs to no file or folder of the package`);
  }
  return problems;
}

/** Problems of a Unity package's package.json: the common fields and Unity's. */
export function manifestProblems(manifest: Record<string, unknown>): string[] {
  return [...commonProblems(manifest), ...unityFieldProblems(manifest)];
}
