/** `add`, `uninstall`, `install` and `list` on a project. */
import type { VersionRecord } from '@pkg/protocol';
import semver from 'semver';
import { TarballCache } from '../cache/tarball-cache.js';
import type { CommandContext } from '../context.js';
import { sameRegistryUrl } from '../engines/registry-url.js';
import { ClientError } from '../output/errors.js';
import {
  addReport,
  installReport,
  listReport,
  uninstallReport,
  type FetchedPackage,
  type ListedPackage,
  type ProjectHeader,
  type SkippedPackage,
} from '../output/project-reports.js';
import type { CommandResult } from '../output/reporter.js';
import { parsePackageRequest, planAdd } from '../updates/add-plan.js';
import { pickNewest } from '../updates/pick-version.js';
import { recordOf, registryClosure } from '../updates/plan-context.js';
import { planUninstall } from '../updates/uninstall-plan.js';
import { applyWithInstall, installFromLock, installsFiles, uninstallWithInstall } from '../install/project-install.js';
import { lockInstallReport } from '../output/lock-install-report.js';
import { applyManifestChange } from './apply-change.js';
import { throwOnConflicts } from './conflicts.js';
import { openProject, planContextFor, type OpenProject } from './open-project.js';
import { progressBar } from './progress.js';
import { fetchDocuments, planWithDocuments, type DocumentMap } from './registry-documents.js';

export interface ProjectOptions {
  registry?: string;
  engine?: string;
  engineVersion?: string;
  /** Godot and Unreal: go on over package files changed by hand. */
  force?: boolean;
}

async function start(ctx: CommandContext, options: ProjectOptions) {
  const open = await openProject(ctx, options.engine, options.engineVersion);
  const registry = await ctx.registryUrl(options.registry);
  const header: ProjectHeader = {
    engine: open.engine.id,
    engineLabel: open.engineLabel,
    project: open.project,
    registry,
  };
  return { open, registry, header };
}

function scopesOption(open: OpenProject, registryUrl: string) {
  return open.engine.usesScopedRegistries ? { registryUrl, entries: open.manifest.manifest.scopedRegistries } : undefined;
}

function applyOptions(ctx: CommandContext) {
  return { fs: ctx.deps.fs, backupRoot: ctx.deps.tmpdir, now: ctx.deps.now() };
}

export async function projectAdd(ctx: CommandContext, specs: string[], options: ProjectOptions): Promise<CommandResult> {
  const requests = specs.map(parsePackageRequest);
  const { open, registry, header } = await start(ctx, options);
  const client = await ctx.registry(registry);
  const scopes = scopesOption(open, registry);
  const documents: DocumentMap = new Map();
  const plan = await planWithDocuments(client, documents, (docs) =>
    planAdd(open.manifest.manifest.dependencies, requests, planContextFor(open.engine, open.version, docs), {
      engineLabel: open.engineLabel,
      ...(scopes ? { scopes } : {}),
    }),
  );
  throwOnConflicts(plan.conflicts);
  const set = Object.fromEntries([
    ...plan.added.map((a) => [a.package, a.version]),
    ...plan.raised.map((r) => [r.package, r.to]),
  ]);
  const change = { set, ...(plan.registryEntry ? { registry: plan.registryEntry } : {}) };
  const applied = installsFiles(open)
    ? await applyWithInstall(ctx, open, client, documents, change, { force: options.force ?? false })
    : await applyManifestChange(open, change, applyOptions(ctx));
  return addReport(header, plan, applied.backupPath);
}

export async function projectUninstall(ctx: CommandContext, names: string[], options: ProjectOptions): Promise<CommandResult> {
  const { open, registry, header } = await start(ctx, options);
  const dependencies = open.manifest.manifest.dependencies;
  for (const name of names) {
    if (!(name in dependencies)) {
      throw new ClientError('PACKAGE_NOT_IN_PROJECT', { message: `package '${name}' not found in project` });
    }
  }
  if (installsFiles(open)) {
    const plan = planUninstall(dependencies, names, planContextFor(open.engine, open.version, new Map()));
    if (plan.kind !== 'plan') throw new Error('uninstall without scopes needs no documents');
    const applied = await uninstallWithInstall(ctx, open, names, { force: options.force ?? false });
    return uninstallReport(header, plan, applied.backupPath);
  }
  const scopes = scopesOption(open, registry);
  // Scopes are only worked out when there is an entry of ours to shrink: no registry call otherwise.
  const ours = scopes !== undefined && scopes.entries.some((e) => sameRegistryUrl(e.url, registry));
  const client = ours ? await ctx.registry(registry) : null;
  const plan = client
    ? await planWithDocuments(client, new Map(), (docs) =>
        planUninstall(dependencies, names, planContextFor(open.engine, open.version, docs), scopes),
      )
    : planUninstall(dependencies, names, planContextFor(open.engine, open.version, new Map()));
  if (plan.kind !== 'plan') throw new Error('uninstall without scopes needs no documents');
  const applied = await applyManifestChange(
    open,
    { remove: plan.removed.map((r) => r.package), ...(plan.registryEntry ? { registry: plan.registryEntry } : {}) },
    applyOptions(ctx),
  );
  return uninstallReport(header, plan, applied.backupPath);
}

function status(open: OpenProject, name: string, version: string, documents: DocumentMap): string | null {
  if (open.engine.isBuiltIn(name)) return 'built-in';
  if (!semver.valid(version)) return 'local or git reference';
  if (documents.get(name) === null) return 'not in registry';
  return null;
}

export async function projectInstall(ctx: CommandContext, options: ProjectOptions): Promise<CommandResult> {
  const { open, registry, header } = await start(ctx, options);
  const client = await ctx.registry(registry);
  if (installsFiles(open)) {
    const restored = await installFromLock(ctx, open, client, { force: options.force ?? false });
    return lockInstallReport(header, restored.packages, restored.backupPath);
  }
  const dependencies = open.manifest.manifest.dependencies;
  const documents: DocumentMap = new Map();
  const roots = Object.entries(dependencies)
    .filter(([name, version]) => !open.engine.isBuiltIn(name) && semver.valid(version))
    .map(([name, version]) => ({ name, version }));
  const { records } = await planWithDocuments<{ kind: 'plan'; records: VersionRecord[] }>(client, documents, (docs) => {
    const closure = registryClosure(planContextFor(open.engine, open.version, docs), roots);
    return closure.missing.size > 0
      ? { kind: 'needs-documents' as const, names: [...closure.missing] }
      : { kind: 'plan' as const, records: closure.records };
  });
  const context = planContextFor(open.engine, open.version, documents);
  for (const { name, version } of roots) {
    if (documents.get(name) && !recordOf(context, name, version)) {
      throw new ClientError('VERSION_NOT_FOUND', {
        message: `Version '${version}' of ${name} not found`,
        hint: `${open.engine.manifestRelativePath} asks for a version the registry does not have: pick another with \`pkg add ${name}@<version>\`.`,
      });
    }
  }
  const skipped: SkippedPackage[] = [];
  for (const [name, version] of Object.entries(dependencies)) {
    const why = status(open, name, version, documents);
    if (why) skipped.push({ package: name, version, status: why });
  }
  const cache = new TarballCache(ctx.deps.fs, ctx.paths.cacheDir);
  const fetched: FetchedPackage[] = [];
  const progress = progressBar(ctx.reporter, ctx.deps.stderr.isTTY, records.length);
  try {
    for (const record of records) {
      const result = await cache.fetch(client, record);
      fetched.push({ package: record.name, version: record.version, cached: result.fromCache });
      progress.tick(`${record.name}@${record.version}`);
    }
  } finally {
    progress.done();
  }
  return installReport(header, fetched, skipped);
}

export async function projectList(ctx: CommandContext, outdated: boolean, options: ProjectOptions): Promise<CommandResult> {
  const { open, registry, header } = await start(ctx, options);
  const dependencies = open.manifest.manifest.dependencies;
  const resolved = await open.engine.readResolvedVersions(open.project, open.fs);
  const documents: DocumentMap = new Map();
  const registryNames = Object.entries(dependencies)
    .filter(([name, version]) => !open.engine.isBuiltIn(name) && semver.valid(version))
    .map(([name]) => name);
  if (registryNames.length > 0) await fetchDocuments(await ctx.registry(registry), registryNames, documents);
  const context = planContextFor(open.engine, open.version, documents);
  const packages: ListedPackage[] = Object.entries(dependencies).map(([name, requested]) => {
    const why = status(open, name, requested, documents);
    const latest = why ? null : pickNewest(context, name);
    const current = resolved[name] ?? requested;
    return {
      package: name,
      requested,
      resolved: resolved[name] ?? null,
      latest_compatible: latest,
      status: why ?? (latest === null ? 'no compatible version' : 'registry'),
      outdated: latest !== null && semver.valid(current) !== null && semver.gt(latest, current),
    };
  });
  return listReport(header, packages, outdated);
}
