import { ENGINE_OPTION, ENGINE_VERSION_OPTION } from './options/project-options.js';
import { PROJECT_REGISTRY_OPTION, type Command } from './types.js';

interface AuditOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
}

export const audit: Command<AuditOptions> = {
  name: 'audit',
  summary: "Report the project's packages that have known security advisories, with the fix",
  description:
    'Ask each registry of the project about the versions the project holds (the request `npm audit` makes) and list every affected package with its advisories and the version that fixes them. Exits with 1 when a package is affected, so a CI job fails; changes nothing.',
  options: [PROJECT_REGISTRY_OPTION, ENGINE_OPTION, ENGINE_VERSION_OPTION],
  examples: ['pkg audit', 'pkg audit --json'],
  async run(ctx, { options }) {
    const { projectAudit } = await import('../project/project-audit.js');
    return projectAudit(ctx, options);
  },
};
