/** `pkg update` on a project: plan, then print (dry run), fetch (--save=false) or apply. */
import type { VersionRecord } from '@pkg/protocol';
import { TarballCache } from '../cache/tarball-cache.js';
import { DOWNLOAD_CONCURRENCY, eachBounded, oneLineAtATime } from '../cache/parallel-downloads.js';
import type { CommandContext } from '../context.js';
import type { RegistryClient } from '../http/registry-client.js';
import { ClientError } from '../errors/client-errors.js';
import type { CommandResult } from '../output/reporter.js';
import { updateReport } from '../reports/update-report.js';
import { recordOf, type PlanContext } from '../resolve/plan-context.js';
import type { PlannedUpdate, UpdatePlan } from '../resolve/update-plan.js';
import { diffResolution } from '../resolve/diff.js';
import { resolveProject } from './resolve-project.js';
import { applyWithInstall, installsFiles } from './installed-files.js';
import { applyManifestChange, applyOptionsOf } from './apply-change.js';
import { conflictLines, throwOnConflicts } from './conflicts.js';
import { openProject, type OpenProject } from './open-project.js';
import { projectRegistries, type ProjectRegistries } from './project-registries.js';
import { askAdvisories, type KnownAdvisories } from './installed-advisories.js';
import { registryDependencies } from './project-actions.js';
import type { DocumentMap } from './registry-documents.js';
import { downloadProgress, progressBar } from './progress.js';

export interface ProjectUpdateOptions {
  dryRun?: boolean;
  registry?: string;
  save: boolean;
  latest?: boolean;
  engine?: string;
  engineVersion?: string;
  /** Godot and Unreal: go on over package files changed by hand. */
  force?: boolean;
}

export async function projectUpdate(ctx: CommandContext, names: string[], options: ProjectUpdateOptions): Promise<CommandResult> {
  const open = await openProject(ctx, options.engine, options.engineVersion);
  const { engine, manifest } = open;
  const dependencies = manifest.manifest.dependencies;
  for (const name of names) {
    if (!(name in dependencies)) {
      throw new ClientError('UPDATE_NOT_IN_PROJECT', { name, manifest: engine.manifestRelativePath });
    }
  }
  const registries = await projectRegistries(ctx, open, options.registry !== undefined ? { flag: options.registry } : {});
  registries.refuseOutsideRun(names);
  const only = options.registry !== undefined ? new Set(Object.keys(dependencies).filter(registries.inRun)) : undefined;
  const { documents, advisories } = await updateCandidates(ctx, open, registries, names);
  const isAffected = (name: string, version: string) => advisories.affecting(name, version).length > 0;
  const { resolution, latestRetry } = await resolveProject(
    open,
    registries,
    { kind: 'update', names, latest: options.latest ?? false, ...(only ? { only } : {}) },
    { documents, isAffected },
  );
  const plan: UpdatePlan = { ...resolution.update!, conflicts: resolution.conflicts };
  const base = {
    plan,
    engine: engine.id,
    engineLabel: open.engineLabel,
    engineVersion: open.version.text,
    project: open.project,
    registry: registries.inEffect,
    ...(registries.set.registriesAsked.length > 0 ? { registries: registries.set.registriesAsked } : {}),
    manifestName: engine.manifestRelativePath,
    advisories: (name: string, version: string) => advisories.affecting(name, version),
  };
  const scopedBefore = manifest.manifest.scopedRegistries;
  // A dry run shows the conflicts with the rest of the plan (and exits 1: it cannot be applied).
  if (options.dryRun) {
    return updateReport(
      { ...base, mode: 'dry-run', backupPath: null, conflictLines: conflictLines(plan.conflicts, 'update', latestRetry) },
      scopedBefore,
    );
  }
  throwOnConflicts(plan.conflicts, 'update', latestRetry);
  if (!options.save) {
    await fetchIntoCache(ctx, (record) => registries.clientFor(record), registries.context(documents), plan.updated);
    return updateReport({ ...base, mode: 'fetched', backupPath: null }, scopedBefore);
  }
  // Engines that install files (Godot, Unreal) have no scoped registries: one registry serves all.
  if (installsFiles(open)) {
    const applied = await applyWithInstall(ctx, open, () => registries.set.client(registries.inEffect), resolution, {
      force: options.force ?? false,
    });
    return updateReport(
      { ...base, mode: 'saved', backupPath: applied.backupPath, dependencies: applied.dependencies },
      scopedBefore,
    );
  }
  const diff = diffResolution({ dependencies, held: {} }, resolution);
  const applied = await applyManifestChange(open, diff.manifest, await applyOptionsOf(ctx));
  return updateReport({ ...base, mode: 'saved', backupPath: applied.backupPath }, scopedBefore);
}

/**
 * The documents of the packages the update may move, and the advisories of all their published
 * versions, so that the plan can prefer versions no advisory affects and the report can mark
 * those that are. A registry that cannot say which advisories apply is warned about, not fatal.
 */
async function updateCandidates(
  ctx: CommandContext,
  open: OpenProject,
  registries: ProjectRegistries,
  names: readonly string[],
): Promise<{ documents: DocumentMap; advisories: KnownAdvisories }> {
  const selected = new Set(names);
  const candidates = registryDependencies(open)
    .map(([name]) => name)
    .filter((name) => registries.inRun(name) && !registries.set.isUnqueried(name) && (selected.size === 0 || selected.has(name)));
  const documents: DocumentMap = new Map();
  await registries.set.fetch(candidates, documents);
  const versions = new Map(candidates.map((name) => [name, Object.keys(documents.get(name)?.versions ?? {})]));
  const advisories = await askAdvisories(registries, versions, true);
  for (const [url, err] of advisories.failed) {
    ctx.reporter.warn(`${url} could not say which advisories apply, the update does not take them into account: ${err.message}`);
  }
  for (const notice of advisories.notices) ctx.reporter.warn(notice);
  return { documents, advisories };
}

/** Downloads and verifies the planned versions into the local cache, each from its registry. */
export async function fetchIntoCache(
  ctx: CommandContext,
  clientFor: (record: VersionRecord) => Promise<RegistryClient>,
  context: PlanContext,
  updates: readonly PlannedUpdate[],
): Promise<void> {
  const cache = new TarballCache(ctx.deps.fs, ctx.paths.cacheDir);
  const records = updates.flatMap((u) => recordOf(context, u.package, u.to) ?? []);
  const progress = progressBar(ctx.reporter, ctx.deps.stderr.isTTY, records.length);
  const line = oneLineAtATime();
  try {
    await eachBounded(records, DOWNLOAD_CONCURRENCY, async (record) => {
      await cache.fetch(await clientFor(record), record, line(downloadProgress(ctx, record)));
      progress.tick(`${record.name}@${record.version}`);
    });
  } finally {
    progress.done();
  }
}
