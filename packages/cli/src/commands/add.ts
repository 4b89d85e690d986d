import { REGISTRY_OPTION, type Command } from './types.js';
import { ENGINE_OPTION, ENGINE_VERSION_OPTION, FORCE_OPTION, nameList } from './options/project-options.js';

interface AddOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
  force?: boolean;
  latest?: boolean;
}

export const add: Command<AddOptions> = {
  name: 'add',
  summary: 'Add packages to the project, at the newest version its editor supports',
  description:
    "Add packages to the project's manifest. Without a version, the newest version compatible with the project's editor is chosen (not simply `latest`). The registry's scoped-registry entry is created or completed with each package and every dependency the registry serves. In a Godot or Unreal project, the packages are installed into addons/ or Plugins/, enabled in the project file and locked in pkg-lock.json.",
  arguments: [
    {
      name: 'package',
      description: 'package name, optionally with @<version>, @<dist-tag> or @<range>',
      required: true,
      variadic: true,
    },
  ],
  options: [
    REGISTRY_OPTION,
    {
      flags: '--latest',
      description:
        'let packages already in the manifest move to a new major version when an added version needs it (by default they stay within their major)',
    },
    ENGINE_OPTION,
    ENGINE_VERSION_OPTION,
    FORCE_OPTION,
  ],
  examples: [
    'pkg add com.vendor.input',
    'pkg add com.vendor.input@1.2.0 com.vendor.audio@beta',
    'pkg add com.vendor.input --json',
    'pkg add com.vendor.input@2.0.0 --latest',
  ],
  async run(ctx, { args, options }) {
    const { projectAdd } = await import('../project/project-actions.js');
    return projectAdd(ctx, nameList(args.package), options);
  },
};
