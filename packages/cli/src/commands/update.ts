import { PROJECT_REGISTRY_OPTION, type Command } from './types.js';
import {
  ENGINE_OPTION,
  ENGINE_VERSION_OPTION,
  FORCE_OPTION,
  GLOBAL_OPTION,
  SAVE_OPTION,
  nameList,
  saveOption,
  type SaveValue,
} from './options/project-options.js';

interface UpdateOptions {
  dryRun?: boolean;
  global?: boolean;
  registry?: string;
  save?: SaveValue;
  latest?: boolean;
  engine?: string;
  engineVersion?: string;
  force?: boolean;
}

export const update: Command<UpdateOptions> = {
  name: 'update',
  summary: "Update the project's packages (or global ones) safely, within their major version",
  description:
    "Update packages in the project's manifest to the newest version of their major that the project's editor supports, raising the packages they depend on as needed. With no names, every dependency is considered. The manifest is backed up first, written atomically with its formatting kept, and restored automatically if anything fails.",
  arguments: [{ name: 'package', description: 'packages to update (default: all dependencies)', variadic: true }],
  options: [
    { flags: '--dry-run', description: 'show what would be updated and change nothing' },
    GLOBAL_OPTION,
    PROJECT_REGISTRY_OPTION,
    SAVE_OPTION,
    { flags: '--latest', description: 'allow new major versions (by default updates stay within the current major)' },
    ENGINE_OPTION,
    ENGINE_VERSION_OPTION,
    FORCE_OPTION,
  ],
  examples: [
    'pkg update',
    'pkg update com.vendor.input --dry-run',
    'pkg update --latest --json',
    'pkg update --save=false',
    'pkg update --global',
  ],
  async run(ctx, { args, options }) {
    const { save, packageName } = saveOption(options.save);
    const names = [...(packageName ? [packageName] : []), ...nameList(args.package)];
    const settings = { ...options, save };
    if (options.global) {
      const { globalUpdate } = await import('../global/global-actions.js');
      return globalUpdate(ctx, names, settings);
    }
    const { projectUpdate } = await import('../project/project-update.js');
    return projectUpdate(ctx, names, settings);
  },
};
