import { PROJECT_REGISTRY_OPTION, type Command } from './types.js';
import { ENGINE_OPTION, ENGINE_VERSION_OPTION } from './options/project-options.js';

interface WhyOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
}

export const why: Command<WhyOptions> = {
  name: 'why',
  summary: 'Show which dependency chains bring a package into the project',
  description:
    'Show why a package is in the project: whether the manifest lists it, and every chain of dependencies from a manifest entry down to it, with the version of each package on the way (as the editor resolves them; in Godot and Unreal, as pkg-lock.json holds them).',
  arguments: [{ name: 'package', description: 'the package name', required: true }],
  options: [PROJECT_REGISTRY_OPTION, ENGINE_OPTION, ENGINE_VERSION_OPTION],
  examples: ['pkg why com.vendor.core', 'pkg why com.vendor.core --json'],
  async run(ctx, { args, options }) {
    const { projectWhy } = await import('../project/project-list.js');
    return projectWhy(ctx, String(args.package), options);
  },
};
