/** Small packages for each engine, and project files as the engines write them, for end-to-end tests. */
import type { FixtureVersion } from '@pkg/testkit';

export const unity = (version: string, dependencies: Record<string, string> = {}, editor = '2021.3'): FixtureVersion => ({
  version,
  manifest: { unity: editor, ...(Object.keys(dependencies).length > 0 ? { dependencies } : {}) },
  files: [{ path: 'Runtime/Code.cs', content: `// ${version}\n` }],
});

export const godot = (folder: string, version: string, dependencies: Record<string, string> = {}): FixtureVersion => ({
  version,
  manifest: { godot: '4.0', ...(Object.keys(dependencies).length > 0 ? { dependencies } : {}) },
  files: [{ path: `addons/${folder}/${folder}.gd`, content: `extends Node\nconst VERSION = "${version}"\n` }],
});

export const unreal = (plugin: string, version: string, dependencies: Record<string, string> = {}): FixtureVersion => ({
  version,
  manifest: { unreal: '5.2', ...(Object.keys(dependencies).length > 0 ? { dependencies } : {}) },
  files: [
    {
      path: `${plugin}.uplugin`,
      content: JSON.stringify({ FileVersion: 3, VersionName: version, FriendlyName: plugin, Modules: [] }, null, '\t'),
    },
    { path: `Source/${plugin}/${plugin}.cpp`, content: `// ${version}\n` },
  ],
});

/** A Godot 4.2 `project.godot`. */
export const PROJECT_GODOT =
  'config_version=5\n\n[application]\n\nconfig/name="Arena"\nconfig/features=PackedStringArray("4.2")\n';
/** An Unreal Engine 5.3 `.uproject`, tab-indented as the editor writes it. */
export const UPROJECT = '{\n\t"FileVersion": 3,\n\t"EngineAssociation": "5.3",\n\t"Modules": []\n}';
