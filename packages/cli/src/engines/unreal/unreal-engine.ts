import path from 'node:path';
import { parseProjectMinorVersion } from '@pkg/protocol';
import type { ProjectFs } from '../../files/project-fs.js';
import type { Engine, EngineVersion } from '../engine.js';
import type { EngineInstaller } from '../installer.js';
import { ClientError } from '../../errors/client-errors.js';
import { minorEngineChecks } from '../minor-engine.js';
import { pkgJsonManifest } from '../pkg-json.js';
import { disableUnrealPlugin, enableUnrealPlugin, engineAssociation, uprojectProblem } from './uproject.js';

/** Unreal's own rule for module and plugin names, and a safe path segment. */
const PLUGIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

async function uprojectsIn(dir: string, fs: ProjectFs): Promise<string[]> {
  return (await fs.listDir(dir)).filter((n) => n.endsWith('.uproject')).sort();
}

/** The project's one `.uproject`; two or more is a folder pkg cannot act on without guessing. */
async function uprojectOf(project: string, fs: ProjectFs): Promise<string> {
  const found = await uprojectsIn(project, fs);
  if (found.length === 0) {
    throw new ClientError('UNREAL_PROJECT_NOT_FOUND', { project });
  }
  if (found.length !== 1) {
    throw new ClientError('UNREAL_PROJECT_AMBIGUOUS', { project, count: found.length, files: found.join(', ') });
  }
  return found[0]!;
}

async function readUproject(project: string, fs: ProjectFs): Promise<{ name: string; text: string }> {
  const name = await uprojectOf(project, fs);
  const text = (await fs.readTextIfExists(path.join(project, name))) ?? '';
  const problem = uprojectProblem(text);
  if (problem) {
    throw new ClientError('UPROJECT_INVALID', { file: name, problem });
  }
  return { name, text };
}

const installer: EngineInstaller = {
  projectFile: uprojectOf,

  layout(files, record) {
    const label = `${record.name}@${record.version}`;
    const uplugins = files.filter((f) => !f.includes('/') && f.endsWith('.uplugin'));
    if (uplugins.length !== 1) {
      throw new ClientError('UPLUGIN_COUNT', { label, count: uplugins.length });
    }
    const name = uplugins[0]!.slice(0, -'.uplugin'.length);
    if (!PLUGIN_NAME.test(name)) {
      throw new ClientError('UPLUGIN_NAME', { label, name });
    }
    return { source: '', target: `Plugins/${name}`, exclude: ['package.json'] };
  },

  enable(text, target) {
    const name = target.slice('Plugins/'.length);
    const result = enableUnrealPlugin(text, name);
    if (!result) return null;
    return {
      text: result.text,
      edit: {
        kind: 'unreal-plugin',
        value: name,
        ...(result.created ? { created: result.created } : {}),
        ...(result.previous !== undefined ? { previous: result.previous } : {}),
      },
    };
  },

  disable(text, edit) {
    return disableUnrealPlugin(text, edit.value, edit);
  },

  // Building a plugin from source writes these into its folder.
  isGenerated: (relative) => relative.startsWith('Binaries/') || relative.startsWith('Intermediate/'),
  keepsOnUpdate: () => false,
};

export const unrealEngine: Engine = {
  id: 'unreal',
  displayName: 'Unreal Engine',
  versionField: 'unreal',
  usesScopedRegistries: false,
  ...pkgJsonManifest,

  async detect(dir, fs) {
    return (await uprojectsIn(dir, fs)).length > 0;
  },

  /** `EngineAssociation` when it is `<major>.<minor>`; a source build's GUID says nothing pkg can compare. */
  async readEngineVersion(project, fs): Promise<EngineVersion> {
    const { name, text } = await readUproject(project, fs);
    const association = engineAssociation(text);
    if (parseProjectMinorVersion(association) !== null) return { text: association };
    throw new ClientError('ENGINE_VERSION_REQUIRED', {
      file: name,
      association: association === '' ? 'an empty EngineAssociation' : `EngineAssociation '${association}'`,
    });
  },

  ...minorEngineChecks('unreal'),
  installer,
};
