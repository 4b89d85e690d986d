import { PROJECT_REGISTRY_OPTION, type Command } from './types.js';
import { ENGINE_OPTION, ENGINE_VERSION_OPTION } from './options/project-options.js';

interface OutdatedOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
}

export const outdated: Command<OutdatedOptions> = {
  name: 'outdated',
  summary: "List the project's packages that have a newer compatible version; exit 1 when any has",
  description:
    "List the packages of the project's manifest that have a newer version the project's editor can use: the version the project has, the newest within its major (what `pkg update` takes) and the newest in any major (what `pkg update --latest` takes). Exits 1 when any package is outdated, so a CI step fails, and 0 when none is.",
  options: [PROJECT_REGISTRY_OPTION, ENGINE_OPTION, ENGINE_VERSION_OPTION],
  examples: ['pkg outdated', 'pkg outdated --json'],
  async run(ctx, { options }) {
    const { projectOutdated } = await import('../project/project-list.js');
    return projectOutdated(ctx, options);
  },
};
