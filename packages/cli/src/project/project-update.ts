/** `pkg update` on a project: plan, then print (dry run), fetch (--save=false) or apply. */
import type { VersionRecord } from '@pkg/protocol';
import { TarballCache } from '../cache/tarball-cache.js';
import type { CommandContext } from '../context.js';
import type { RegistryClient } from '../http/registry-client.js';
import { ClientError } from '../output/errors.js';
import type { CommandResult } from '../output/reporter.js';
import { updateReport } from '../output/update-report.js';
import { recordOf, type PlanContext } from '../updates/plan-context.js';
import { planUpdate, type PlannedUpdate } from '../updates/update-plan.js';
import { applyWithInstall, installsFiles } from '../install/project-install.js';
import { applyManifestChange, applyOptionsOf } from './apply-change.js';
import { throwOnConflicts } from './conflicts.js';
import { openProject } from './open-project.js';
import { projectRegistries } from './project-registries.js';
import { downloadProgress, progressBar } from './progress.js';
import { planWithDocuments, type DocumentMap } from './registry-documents.js';

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
  const documents: DocumentMap = new Map();
  let context: PlanContext | undefined;
  const plan = await planWithDocuments(registries.set, documents, (docs) => {
    context = registries.context(docs);
    return planUpdate(dependencies, context, {
      names,
      latest: options.latest ?? false,
      ...(registries.scopes ? { scopes: registries.scopes } : {}),
      ...(only ? { only } : {}),
    });
  });
  throwOnConflicts(plan.conflicts, 'update');

  const base = {
    plan,
    engine: engine.id,
    engineLabel: open.engineLabel,
    engineVersion: open.version.text,
    project: open.project,
    registry: registries.inEffect,
    ...(registries.set.registriesAsked.length > 0 ? { registries: registries.set.registriesAsked } : {}),
    manifestName: engine.manifestRelativePath,
  };
  const scopedBefore = manifest.manifest.scopedRegistries;
  if (options.dryRun) return updateReport({ ...base, mode: 'dry-run', backupPath: null }, scopedBefore);
  if (!options.save) {
    await fetchIntoCache(ctx, (record) => registries.clientFor(record), context!, plan.updated);
    return updateReport({ ...base, mode: 'fetched', backupPath: null }, scopedBefore);
  }
  const set = Object.fromEntries(plan.updated.map((u) => [u.package, u.to]));
  const change = { set, registries: plan.registryEntries };
  // Engines that install files (Godot, Unreal) have no scoped registries: one registry serves all.
  if (installsFiles(open)) {
    const applied = await applyWithInstall(ctx, open, await registries.set.client(registries.inEffect), documents, change, {
      force: options.force ?? false,
    });
    return updateReport(
      { ...base, mode: 'saved', backupPath: applied.backupPath, dependencies: applied.dependencies },
      scopedBefore,
    );
  }
  const applied = await applyManifestChange(open, change, await applyOptionsOf(ctx));
  return updateReport({ ...base, mode: 'saved', backupPath: applied.backupPath }, scopedBefore);
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
  try {
    for (const record of records) {
      await cache.fetch(await clientFor(record), record, downloadProgress(ctx, record));
      progress.tick(`${record.name}@${record.version}`);
    }
  } finally {
    progress.done();
  }
}
