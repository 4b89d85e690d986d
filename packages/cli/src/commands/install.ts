import { REGISTRY_OPTION, type Command } from './types.js';
import { ENGINE_OPTION, ENGINE_VERSION_OPTION, FORCE_OPTION, GLOBAL_OPTION, nameList } from './options/project-options.js';

interface InstallOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
  force?: boolean;
  global?: boolean;
}

export const install: Command<InstallOptions> = {
  name: 'install',
  summary: "Fetch and verify the project's packages into the local cache, or add packages",
  description:
    "Without names: download every registry dependency of the project's manifest (and their dependencies) into the local cache and verify each against its integrity value; the manifest is not changed. In a Godot or Unreal project: install exactly the packages of pkg-lock.json, each tarball and file verified (resolving pkg.json again when the lock does not cover it). With names: the same as `pkg add`. With --global: download, verify and extract the named packages into the client's data directory.",
  arguments: [{ name: 'package', description: 'packages to add (as with `pkg add`)', variadic: true }],
  options: [REGISTRY_OPTION, ENGINE_OPTION, ENGINE_VERSION_OPTION, FORCE_OPTION, GLOBAL_OPTION],
  examples: ['pkg install', 'pkg install com.vendor.input@1.2.0', 'pkg install --global com.vendor.tools'],
  // Restoring what the project states, as `npm install` does, a fresh cached document will do;
  // with names it is `add`, which asks what the registry holds now.
  documentFreshness: ({ args, options }) => (nameList(args.package).length === 0 && !options.global ? 'max-age' : 'revalidate'),
  async run(ctx, { args, options }) {
    const names = nameList(args.package);
    if (options.global) {
      const { ClientError } = await import('../errors/client-errors.js');
      if (names.length === 0) {
        throw new ClientError('GLOBAL_NAMES_MISSING');
      }
      const { globalInstall } = await import('../global/global-actions.js');
      return globalInstall(ctx, names, options.registry);
    }
    const { projectAdd, projectInstall } = await import('../project/project-actions.js');
    return names.length > 0 ? projectAdd(ctx, names, options) : projectInstall(ctx, options);
  },
};
