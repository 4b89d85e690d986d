import path from 'node:path';
import type { Engine, EngineVersion } from '../engine.js';
import type { EngineInstaller } from '../installer.js';
import { ClientError } from '../../errors/client-errors.js';
import { minorEngineChecks } from '../minor-engine.js';
import { pkgJsonManifest } from '../pkg-json.js';
import {
  disableEditorPlugin,
  enableEditorPlugin,
  godotConfigVersion,
  godotFeatureVersion,
  godotNetSdkVersion,
  type PluginListCreation,
} from './project-godot.js';

const PROJECT_FILE = 'project.godot';
/** Godot 4 writes `config_version=5`; Godot 3 wrote 4. */
const GODOT_4_CONFIG = 5;
/** Folder names Godot accepts under `res://addons/` and that are safe as a path segment. */
const FOLDER = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

const installer: EngineInstaller = {
  async projectFile() {
    return PROJECT_FILE;
  },

  layout(files, record) {
    const label = `${record.name}@${record.version}`;
    const folders = new Set<string>();
    for (const file of files) {
      const parts = file.split('/');
      if (parts.length === 1) continue; // package.json, README.md, LICENSE: not installed
      if (parts[0] !== 'addons' || parts.length < 3) {
        throw layoutError(label, `'${file}' is outside addons/<folder>/`);
      }
      folders.add(parts[1]!);
    }
    if (folders.size !== 1) {
      throw layoutError(label, folders.size === 0 ? 'it has no addons/<folder>/' : `it has ${folders.size} folders in addons/`);
    }
    const folder = [...folders][0]!;
    if (!FOLDER.test(folder)) throw layoutError(label, `'addons/${folder}' is not a usable folder name`);
    return { source: `addons/${folder}`, target: `addons/${folder}`, exclude: [] };
  },

  enable(text, target, files) {
    if (!files.includes('plugin.cfg')) return null;
    const value = `res://${target}/plugin.cfg`;
    const result = enableEditorPlugin(text, value);
    if (!result) return null;
    return {
      text: result.text,
      edit: { kind: 'godot-editor-plugin', value, ...(result.created ? { created: result.created } : {}) },
    };
  },

  disable(text, edit) {
    return disableEditorPlugin(text, edit.value, edit.created as PluginListCreation | undefined);
  },

  isGenerated: (relative) => /\.(import|uid|translation)$/.test(relative),
  keepsOnUpdate: (relative) => relative.endsWith('.uid'),
};

function layoutError(label: string, problem: string): ClientError {
  return new ClientError('NOT_A_GODOT_PACKAGE', { label, problem });
}

export const godotEngine: Engine = {
  id: 'godot',
  displayName: 'Godot',
  versionField: 'godot',
  usesScopedRegistries: false,
  ...pkgJsonManifest,

  async detect(dir, fs) {
    const text = await fs.readTextIfExists(path.join(dir, PROJECT_FILE));
    return text !== null && godotConfigVersion(text) === GODOT_4_CONFIG;
  },

  async unsupportedProject(dir, fs) {
    const file = path.join(dir, PROJECT_FILE);
    const text = await fs.readTextIfExists(file);
    const version = text === null ? null : godotConfigVersion(text);
    if (version === null || version >= GODOT_4_CONFIG) return null;
    return { file, found: version === 4 ? 'Godot 3' : 'Godot 3 or older', version };
  },

  /** A C# project's `Godot.NET.Sdk/<x.y.z>` names the exact version; else `config/features` names the minor. */
  async readEngineVersion(project, fs): Promise<EngineVersion> {
    for (const name of (await fs.listDir(project)).filter((n) => n.endsWith('.csproj')).sort()) {
      const csproj = await fs.readTextIfExists(path.join(project, name));
      const version = csproj === null ? null : godotNetSdkVersion(csproj);
      if (version) return { text: version };
    }
    const text = await fs.readTextIfExists(path.join(project, PROJECT_FILE));
    if (text === null) {
      // Only with --engine godot outside a Godot project: there is no project file to enable plugins in.
      throw new ClientError('GODOT_PROJECT_NOT_FOUND', { file: PROJECT_FILE, project });
    }
    const version = godotFeatureVersion(text);
    if (version === null) {
      return {
        text: null,
        warning: `${PROJECT_FILE} names no engine version in config/features: Godot compatibility is not checked (give --engine-version)`,
      };
    }
    return { text: version };
  },

  ...minorEngineChecks('godot'),
  installer,
};
