import path from 'node:path';
import {
  formatUnityRequirement,
  isUnityCompatible,
  parseUnityRequirement,
  parseUnityVersion,
  type VersionRecord,
  supportedEngines,
} from '@pkg/protocol';
import type { ProjectFs } from '../../files/project-fs.js';
import type { Engine, EngineVersion, ManifestFile } from '../engine.js';
import { ClientError } from '../../errors/client-errors.js';
import { lockedVersionsAt, writeManifestAt } from '../manifest-io.js';
import { isUnityBuiltIn } from './built-ins.js';
import { editorVersionFromProjectVersionTxt } from './project-version.js';
import { editDependencyManifest, parseDependencyManifest } from '../dependency-manifest.js';

const MANIFEST = path.join('Packages', 'manifest.json');
const LOCK = path.join('Packages', 'packages-lock.json');
const PROJECT_VERSION = path.join('ProjectSettings', 'ProjectVersion.txt');

async function readManifestAt(project: string, fs: ProjectFs): Promise<ManifestFile> {
  const file = path.join(project, MANIFEST);
  const text = await fs.readTextIfExists(file);
  if (text === null) {
    throw new ClientError('MANIFEST_NOT_FOUND', { manifest: MANIFEST, project });
  }
  try {
    return { path: file, text, manifest: parseDependencyManifest(text) };
  } catch (error) {
    throw new ClientError('MANIFEST_INVALID', { manifest: MANIFEST, problem: (error as Error).message });
  }
}

export const unityEngine: Engine = {
  id: 'unity',
  displayName: 'Unity',
  versionField: 'unity',
  usesScopedRegistries: true,
  ownRegistry: 'https://packages.unity.com',
  manifestRelativePath: MANIFEST,

  async detect(dir, fs) {
    const [assets, settings, manifest] = await Promise.all([
      fs.isDirectory(path.join(dir, 'Assets')),
      fs.isDirectory(path.join(dir, 'ProjectSettings')),
      fs.isFile(path.join(dir, MANIFEST)),
    ]);
    return assets && settings && manifest;
  },

  async readEngineVersion(project, fs): Promise<EngineVersion> {
    const text = await fs.readTextIfExists(path.join(project, PROJECT_VERSION));
    const version = text === null ? null : editorVersionFromProjectVersionTxt(text);
    if (version === null) {
      return {
        text: null,
        warning: `${PROJECT_VERSION} ${text === null ? 'not found' : 'has no m_EditorVersion'}: editor compatibility is not checked`,
      };
    }
    if (parseUnityVersion(version) === null) {
      return { text: version, warning: `unrecognised editor version '${version}': editor compatibility is not checked` };
    }
    return { text: version };
  },

  readManifest: readManifestAt,

  editManifest(file, change) {
    return editDependencyManifest(file.text, change);
  },

  writeManifest: (project, text, fs) => writeManifestAt(MANIFEST, readManifestAt, project, text, fs),

  readResolvedVersions: (project, fs) => lockedVersionsAt(LOCK, 'dependencies', project, fs),

  isBuiltIn: isUnityBuiltIn,

  isVersionText: (text) => parseUnityVersion(text) !== null,

  isCompatible(record: VersionRecord, version: EngineVersion) {
    // A version naming only Godot or Unreal is no Unity package, whatever the editor.
    if (!isForUnity(record)) return false;
    const editor = version.text === null ? null : parseUnityVersion(version.text);
    if (editor === null) return true;
    const { unity, unityRelease } = record;
    if (unity === undefined) return true;
    if (typeof unity !== 'string' || (unityRelease !== undefined && typeof unityRelease !== 'string')) return false;
    return isUnityCompatible(editor, unity, unityRelease);
  },

  requirementOf(record) {
    const { unity, unityRelease } = record;
    if (!isForUnity(record)) {
      const names = supportedEngines(record).map((e) => (e.engine === 'godot' ? 'Godot' : 'Unreal Engine'));
      return `Unity support (it is for ${names.join(' and ')} only)`;
    }
    if (unity === undefined) return null;
    const requirement =
      typeof unity === 'string' && (unityRelease === undefined || typeof unityRelease === 'string')
        ? parseUnityRequirement(unity, unityRelease)
        : null;
    return requirement ? formatUnityRequirement(requirement) : `unity ${JSON.stringify(unity)} (unreadable)`;
  },
};

/** The registry's reading (`supportedEngines`): a version naming no engine is a Unity package. */
function isForUnity(record: VersionRecord): boolean {
  return supportedEngines(record).some((e) => e.engine === 'unity');
}
