import { PROJECT_REGISTRY_OPTION, type Command } from './types.js';
import { ENGINE_OPTION, ENGINE_VERSION_OPTION, FORCE_OPTION, GLOBAL_OPTION, nameList } from './options/project-options.js';

interface UninstallOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
  force?: boolean;
  global?: boolean;
}

export const uninstall: Command<UninstallOptions> = {
  name: 'uninstall',
  summary: 'Remove packages from the project (or global packages)',
  description:
    "Remove packages from the project's manifest, and the scopes of the registry's scoped-registry entry that no remaining dependency needs (the entry goes when none is left). In a Godot or Unreal project, the package's folder and everything only it needed go too, and the project file is edited back. With --global: remove global packages.",
  arguments: [{ name: 'package', description: 'packages to remove', required: true, variadic: true }],
  options: [PROJECT_REGISTRY_OPTION, ENGINE_OPTION, ENGINE_VERSION_OPTION, FORCE_OPTION, GLOBAL_OPTION],
  examples: ['pkg uninstall com.vendor.input', 'pkg uninstall --global com.vendor.tools'],
  // What stays is already chosen: a fresh cached document will do.
  documentFreshness: () => 'max-age',
  async run(ctx, { args, options }) {
    const names = nameList(args.package);
    if (options.global) {
      const { globalUninstall } = await import('../global/global-actions.js');
      return globalUninstall(ctx, names, options.registry);
    }
    const { projectUninstall } = await import('../project/project-actions.js');
    return projectUninstall(ctx, names, options);
  },
};
