/**
 * `add`, `uninstall` and `install` on a project, each package on its own registry: each one
 * resolve (`resolveProject`), its diff, and the engine's applier (Unity: `apply-change.ts`;
 * Godot and Unreal: `installed-files.ts`).
 */
import type { PackageDocument } from '@pkg/protocol';
import semver from 'semver';
import { TarballCache } from '../cache/tarball-cache.js';
import { DOWNLOAD_CONCURRENCY, eachBounded, oneLineAtATime } from '../cache/parallel-downloads.js';
import type { CommandContext } from '../context.js';
import { ClientError } from '../errors/client-errors.js';
import type { PackageStatus } from '../output/format.js';
import {
  addReport,
  installReport,
  uninstallReport,
  type FetchedPackage,
  type ProjectHeader,
  type SkippedPackage,
} from '../reports/project-reports.js';
import type { CommandResult } from '../output/reporter.js';
import { parsePackageRequest } from '../resolve/add-plan.js';
import { diffResolution } from '../resolve/diff.js';
import { readLock, type RestoredPackage } from '../install/lock-file.js';
import { recordOf } from '../resolve/plan-context.js';
import type { Intent } from '../resolve/resolver.js';
import { applyWithInstall, installFromLock, installsFiles, lockCovers, lockDocuments } from './installed-files.js';
import { resolveProject } from './resolve-project.js';
import { lockInstallReport } from '../reports/lock-install-report.js';
import { applyManifestChange, applyOptionsOf } from './apply-change.js';
import { throwOnConflicts } from './conflicts.js';
import { warnUnsignedForUnity } from './unity-signature-notice.js';
import { openProject, type OpenProject } from './open-project.js';
import { projectRegistries, type ProjectRegistries } from './project-registries.js';
import { downloadProgress, progressBar } from './progress.js';
import type { DocumentMap } from './registry-documents.js';

export interface ProjectOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
  /** Godot and Unreal: go on over package files changed by hand. */
  force?: boolean;
}

export function headerOf(open: OpenProject, registries: ProjectRegistries): ProjectHeader {
  const asked = registries.set.registriesAsked;
  return {
    engine: open.engine.id,
    engineLabel: open.engineLabel,
    project: open.project,
    registry: registries.inEffect,
    ...(asked.length > 0 ? { registries: asked } : {}),
  };
}

/** Manifest dependencies that name a registry version (not built-ins, not file or git references). */
export function registryDependencies(open: OpenProject): [string, string][] {
  return Object.entries(open.manifest.manifest.dependencies).filter(
    ([name, version]) => !open.engine.isBuiltIn(name) && semver.valid(version),
  );
}

export interface AddOptions extends ProjectOptions {
  /** Let what the added versions need cross major versions of the packages already listed. */
  latest?: boolean;
}

export async function projectAdd(ctx: CommandContext, specs: string[], options: AddOptions): Promise<CommandResult> {
  const requests = specs.map(parsePackageRequest);
  const open = await openProject(ctx, options.engine, options.engineVersion);
  const registries = await projectRegistries(ctx, open, {
    ...(options.registry !== undefined ? { flag: options.registry } : {}),
    explicit: new Set(requests.map((r) => r.name)),
  });
  const { resolution, latestRetry } = await resolveProject(open, registries, {
    kind: 'add',
    requests,
    latest: options.latest ?? false,
  });
  throwOnConflicts(resolution.conflicts, 'add', latestRetry);
  const plan = resolution.add!;
  // Engines that install files (Godot, Unreal) have no scoped registries: one registry serves all.
  if (installsFiles(open)) {
    const applied = await applyWithInstall(ctx, open, () => registries.set.client(registries.inEffect), resolution, {
      force: options.force ?? false,
    });
    return addReport(headerOf(open, registries), plan, applied.backupPath, applied.dependencies);
  }
  const diff = diffResolution({ dependencies: open.manifest.manifest.dependencies, held: {} }, resolution);
  const applied = await applyManifestChange(open, diff.manifest, await applyOptionsOf(ctx));
  await warnUnsignedForUnity(ctx, open, registries, plan.added);
  return addReport(headerOf(open, registries), plan, applied.backupPath);
}

export async function projectUninstall(ctx: CommandContext, names: string[], options: ProjectOptions): Promise<CommandResult> {
  const open = await openProject(ctx, options.engine, options.engineVersion);
  const dependencies = open.manifest.manifest.dependencies;
  for (const name of names) {
    if (!(name in dependencies)) {
      // Godot, Unreal: a package installed for others is in the project, but not the user's to remove.
      const resolved = installsFiles(open) ? await open.engine.readResolvedVersions(open.project, open.fs) : {};
      throw name in resolved
        ? new ClientError('ONLY_A_DEPENDENCY', { name })
        : new ClientError('PACKAGE_NOT_IN_PROJECT', { name });
    }
  }
  const registries = await projectRegistries(ctx, open, options.registry !== undefined ? { flag: options.registry } : {});
  registries.refuseOutsideRun(names);
  const intent: Intent = { kind: 'uninstall', names };
  if (installsFiles(open)) {
    const { lock } = await readLock(open.project, open.fs);
    const removed = new Set(names);
    const remaining = Object.fromEntries(Object.entries(dependencies).filter(([name]) => !removed.has(name)));
    // What stays is resolved from the lock when it holds all of it: no registry is asked.
    const documents: DocumentMap = lockCovers(lock, remaining) ? lockDocuments(lock) : new Map<string, PackageDocument | null>();
    const { resolution } = await resolveProject(open, registries, intent, { documents });
    // A conflict here would drop a package that what stays still needs: never silently.
    throwOnConflicts(resolution.conflicts, 'install');
    const applied = await applyWithInstall(ctx, open, () => registries.set.client(registries.inEffect), resolution, {
      force: options.force ?? false,
      repair: false,
    });
    return uninstallReport(headerOf(open, registries), resolution.uninstall!, applied.backupPath, applied.dependencies);
  }
  const { resolution } = await resolveProject(open, registries, intent).catch((err: unknown) => {
    // Removing a package must not need its registry (it may be gone for good, which is often
    // why it is removed); only tidying the scopes does, and extra scopes harm nobody.
    if (!(err instanceof ClientError) || err.code !== 'FETCH_FAILED') throw err;
    ctx.reporter.warn(`The scopes of scopedRegistries were left as they are: ${err.hint ?? err.message}`);
    return resolveProject(open, registries, intent, { rules: { engineLabel: open.engineLabel, closure: 'direct' } });
  });
  const diff = diffResolution({ dependencies, held: {} }, resolution);
  const applied = await applyManifestChange(open, diff.manifest, await applyOptionsOf(ctx));
  return uninstallReport(headerOf(open, registries), resolution.uninstall!, applied.backupPath);
}

export function status(
  open: OpenProject,
  registries: ProjectRegistries,
  name: string,
  version: string,
  documents: DocumentMap,
): PackageStatus | null {
  if (open.engine.isBuiltIn(name)) return 'built-in';
  if (!semver.valid(version)) return 'external';
  if (registries.set.isUnqueried(name)) return 'unity-registry';
  if (registries.set.failedFor(name)) return 'registry-unreachable';
  if (documents.get(name) === null) return 'not-in-registry';
  return null;
}

export async function projectInstall(ctx: CommandContext, options: ProjectOptions): Promise<CommandResult> {
  const open = await openProject(ctx, options.engine, options.engineVersion);
  const registries = await projectRegistries(ctx, open, options.registry !== undefined ? { flag: options.registry } : {});
  if (installsFiles(open)) return installFiles(ctx, open, registries, options);
  const dependencies = open.manifest.manifest.dependencies;
  const only = new Set(Object.keys(dependencies).filter((name) => registries.inRun(name)));
  const { resolution, documents } = await resolveProject(open, registries, { kind: 'install', only });
  const context = registries.context(documents);
  for (const [name, version] of registryDependencies(open)) {
    if (only.has(name) && documents.get(name) && !recordOf(context, name, version)) {
      throw new ClientError('MANIFEST_VERSION_NOT_IN_REGISTRY', {
        version,
        name,
        manifest: open.engine.manifestRelativePath,
        registry: registries.set.registryOf(name),
      });
    }
  }
  throwOnConflicts(resolution.conflicts, 'install');
  // What the editor resolves, not whatever versions the dependencies happen to name.
  const records = [...resolution.target.values()].flatMap((t) => t.record ?? []);
  const skipped: SkippedPackage[] = [];
  for (const [name, version] of Object.entries(dependencies)) {
    if (!registries.inRun(name)) continue;
    const why = status(open, registries, name, version, documents);
    if (why) skipped.push({ package: name, version, status: why });
  }
  const cache = new TarballCache(ctx.deps.fs, ctx.paths.cacheDir);
  const fetched: FetchedPackage[] = [];
  const progress = progressBar(ctx.reporter, ctx.deps.stderr.isTTY, records.length);
  const line = oneLineAtATime();
  try {
    await eachBounded(records, DOWNLOAD_CONCURRENCY, async (record) => {
      const result = await cache.fetch(() => registries.clientFor(record), record, line(downloadProgress(ctx, record)));
      progress.tick(`${record.name}@${record.version}`);
      return result;
    }).then((results) =>
      results.forEach((result, i) =>
        fetched.push({
          package: records[i]!.name,
          version: records[i]!.version,
          cached: result.fromCache,
          registry: registries.set.registryOf(records[i]!.name),
        }),
      ),
    );
  } finally {
    progress.done();
  }
  return installReport(headerOf(open, registries), fetched, skipped);
}

/**
 * `install` in Godot and Unreal: exactly the lock when it covers `pkg.json`; else the project
 * resolved (keeping the lock's versions where they fit) and applied, as `add` would.
 */
async function installFiles(
  ctx: CommandContext,
  open: OpenProject & Parameters<typeof installFromLock>[1],
  registries: ProjectRegistries,
  options: ProjectOptions,
): Promise<CommandResult> {
  const client = () => registries.set.client(registries.inEffect);
  const force = options.force ?? false;
  const { lock } = await readLock(open.project, open.fs);
  if (lockCovers(lock, open.manifest.manifest.dependencies)) {
    const restored = await installFromLock(ctx, open, client, { force });
    return lockInstallReport(headerOf(open, registries), restored.packages, restored.backupPath);
  }
  const { resolution } = await resolveProject(open, registries, { kind: 'install' });
  throwOnConflicts(resolution.conflicts, 'install');
  const { backupPath } = await applyWithInstall(ctx, open, client, resolution, { force });
  const after = await readLock(open.project, open.fs);
  const packages: RestoredPackage[] = Object.entries(after.lock.packages).map(([name, p]) => ({
    package: name,
    version: p.version,
    status: lock.packages[name]?.version === p.version ? 'in-place' : 'installed',
    cached: false,
  }));
  return lockInstallReport(headerOf(open, registries), packages, backupPath);
}
