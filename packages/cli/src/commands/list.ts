import { PROJECT_REGISTRY_OPTION, type Command } from './types.js';
import { ENGINE_OPTION, ENGINE_VERSION_OPTION, GLOBAL_OPTION } from './options/project-options.js';

interface ListOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
  global?: boolean;
  outdated?: boolean;
  all?: boolean;
}

export const list: Command<ListOptions> = {
  name: 'list',
  summary: "List the project's packages with requested, resolved and latest compatible versions",
  description:
    "List the packages of the project's manifest (with --all, also the packages only others need, and which need them): the version requested, the version installed (Unity: from Packages/packages-lock.json, when present; Godot and Unreal: from pkg-lock.json) and the newest version compatible with the project's editor. With --global: the global packages.",
  options: [
    { flags: '--outdated', description: 'show only packages with a newer compatible version' },
    {
      flags: '--all',
      description: 'also list the packages only others need (transitive dependencies), with which packages need them',
    },
    GLOBAL_OPTION,
    PROJECT_REGISTRY_OPTION,
    ENGINE_OPTION,
    ENGINE_VERSION_OPTION,
  ],
  examples: ['pkg list', 'pkg list --all', 'pkg list --outdated', 'pkg list --json', 'pkg list --global'],
  async run(ctx, { options }) {
    if (options.global) {
      const { globalList } = await import('../global/global-actions.js');
      return globalList(ctx, options.outdated ?? false, options.registry);
    }
    const { projectList } = await import('../project/project-list.js');
    return projectList(ctx, options.outdated ?? false, options);
  },
};
