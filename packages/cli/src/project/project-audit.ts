import semver from 'semver';
import type { CommandContext } from '../context.js';
import { auditReport, type AuditFinding } from '../reports/audit-report.js';
import type { CommandResult } from '../output/reporter.js';
import { installsFiles } from './installed-files.js';
import { askAdvisories } from './installed-advisories.js';
import { pickNewest } from '../resolve/pick-version.js';
import { headerOf, registryDependencies, type ProjectOptions } from './project-actions.js';
import { openProject } from './open-project.js';
import { projectRegistries } from './project-registries.js';
import type { DocumentMap } from './registry-documents.js';

/**
 * `pkg audit`: asks each registry of the project about the versions it holds (npm's bulk
 * advisory request), and for each affected package names the advisories and the version that
 * fixes them: the newest compatible version none of them affects, else the newest such
 * version, else none yet. Plans nothing and changes nothing.
 */
export async function projectAudit(ctx: CommandContext, options: ProjectOptions): Promise<CommandResult> {
  const open = await openProject(ctx, options.engine, options.engineVersion);
  const registries = await projectRegistries(ctx, open, options.registry !== undefined ? { flag: options.registry } : {});
  const resolved = await open.engine.readResolvedVersions(open.project, open.fs);
  const dependencies = open.manifest.manifest.dependencies;
  const installed = new Map<string, string>();
  for (const [name, requested] of registryDependencies(open)) installed.set(name, resolved[name] ?? requested);
  if (installsFiles(open))
    for (const [name, version] of Object.entries(resolved)) if (!(name in dependencies)) installed.set(name, version);
  const asked = [...installed].filter(
    ([name, version]) => registries.inRun(name) && !registries.set.isUnqueried(name) && semver.valid(version),
  );
  const { found, notices } = await askAdvisories(registries, new Map(asked.map(([name, version]) => [name, [version]])), false);
  for (const notice of notices) ctx.reporter.warn(notice);

  const documents: DocumentMap = new Map();
  if (found.size > 0) await registries.set.fetch(found.keys(), documents);
  const context = registries.context(documents);
  const findings: AuditFinding[] = [...found]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, advisories]) => {
      const version = installed.get(name)!;
      const affected = (v: string) =>
        advisories.some((a) => semver.satisfies(v, a.vulnerable_versions, { includePrerelease: true }));
      const fixed = Object.keys(documents.get(name)?.versions ?? {})
        .filter((v) => semver.valid(v) && !semver.prerelease(v) && semver.gt(v, version) && !affected(v))
        .sort(semver.compare);
      const newest = pickNewest(context, name);
      const fix = newest !== null && fixed.includes(newest) ? newest : (fixed.at(-1) ?? null);
      return { package: name, version, registry: registries.set.registryOf(name), advisories, fix };
    });
  return auditReport(headerOf(open, registries), findings, asked.length);
}
