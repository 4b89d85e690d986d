/**
 * `--global` for install, list, update and uninstall. Global packages belong to no project, so
 * no engine version limits them; everything else (version choice, dependency raises, integrity
 * checks, reports) is what the project commands do.
 */
import semver from 'semver';
import { TarballCache } from '../cache/tarball-cache.js';
import type { CommandContext } from '../context.js';
import { ClientError } from '../output/errors.js';
import { addReport, listReport, uninstallReport, type ListedPackage, type ProjectHeader } from '../output/project-reports.js';
import type { CommandResult } from '../output/reporter.js';
import { updateReport } from '../output/update-report.js';
import { throwOnConflicts } from '../project/conflicts.js';
import { planContextFor } from '../project/open-project.js';
import { fetchIntoCache, type ProjectUpdateOptions } from '../project/project-update.js';
import { fetchDocuments, planWithDocuments, type DocumentMap } from '../project/registry-documents.js';
import { parsePackageRequest, planAdd } from '../updates/add-plan.js';
import { pickNewest } from '../updates/pick-version.js';
import { recordOf, type PlanContext } from '../updates/plan-context.js';
import { planUpdate } from '../updates/update-plan.js';
import { GlobalPackages } from './global-packages.js';

const NO_ENGINE = { text: null };
const LABEL = 'none (global packages)';

async function start(ctx: CommandContext, registryFlag: string | undefined) {
  const registry = await ctx.registryUrl(registryFlag);
  const store = new GlobalPackages(ctx.deps.fs, ctx.paths.dataDir, { sleep: ctx.deps.sleep, now: ctx.deps.now });
  const header: ProjectHeader = { engine: 'global', engineLabel: LABEL, project: store.dir, registry };
  return { registry, store, header };
}

function assertInstalled(installed: Record<string, string>, names: string[]): void {
  for (const name of names) {
    if (!(name in installed)) {
      throw new ClientError('GLOBAL_NOT_INSTALLED', {
        message: `package '${name}' is not installed globally`,
        hint: 'See the global packages with `pkg list --global`.',
      });
    }
  }
}

/** Downloads, verifies and extracts each version, in order. */
async function installVersions(
  ctx: CommandContext,
  store: GlobalPackages,
  client: Awaited<ReturnType<CommandContext['registry']>>,
  context: PlanContext,
  versions: { name: string; version: string }[],
): Promise<void> {
  const cache = new TarballCache(ctx.deps.fs, ctx.paths.cacheDir);
  for (const { name, version } of versions) {
    const record = recordOf(context, name, version);
    if (!record) throw new ClientError('VERSION_NOT_FOUND', { message: `Version '${version}' of ${name} not found` });
    const tarball = await cache.fetch(client, record);
    await store.install(name, version, tarball.data);
  }
}

export async function globalInstall(ctx: CommandContext, specs: string[], registryFlag?: string): Promise<CommandResult> {
  const requests = specs.map(parsePackageRequest);
  const { registry, store, header } = await start(ctx, registryFlag);
  const client = await ctx.registry(registry);
  return store.locked(async () => {
    const installed = await store.read();
    const documents: DocumentMap = new Map();
    const plan = await planWithDocuments(client, documents, (docs) =>
      planAdd(installed, requests, planContextFor(null, NO_ENGINE, docs), { engineLabel: LABEL }),
    );
    throwOnConflicts(plan.conflicts);
    const versions = [
      ...plan.added.map((a) => ({ name: a.package, version: a.version })),
      ...plan.raised.map((r) => ({ name: r.package, version: r.to })),
    ];
    await installVersions(ctx, store, client, planContextFor(null, NO_ENGINE, documents), versions);
    await store.write(plan.dependencies);
    return addReport(header, plan, null);
  });
}

export async function globalUninstall(ctx: CommandContext, names: string[], registryFlag?: string): Promise<CommandResult> {
  const { store, header } = await start(ctx, registryFlag);
  return store.locked(async () => {
    const installed = await store.read();
    assertInstalled(installed, names);
    const remaining = { ...installed };
    for (const name of names) {
      await store.remove(name);
      delete remaining[name];
    }
    await store.write(remaining);
    const removed = names.map((name) => ({ package: name, version: installed[name]! }));
    return uninstallReport(header, { kind: 'plan', removed, dependencies: remaining }, null);
  });
}

export async function globalList(ctx: CommandContext, outdated: boolean, registryFlag?: string): Promise<CommandResult> {
  const { registry, store, header } = await start(ctx, registryFlag);
  const installed = await store.read();
  const documents: DocumentMap = new Map();
  if (Object.keys(installed).length > 0) await fetchDocuments(await ctx.registry(registry), Object.keys(installed), documents);
  const context = planContextFor(null, NO_ENGINE, documents);
  const packages: ListedPackage[] = Object.entries(installed).map(([name, version]) => {
    const latest = documents.get(name) ? pickNewest(context, name) : null;
    return {
      package: name,
      requested: version,
      resolved: version,
      latest_compatible: latest,
      status: documents.get(name) === null ? 'not in registry' : 'registry',
      outdated: latest !== null && semver.valid(version) !== null && semver.gt(latest, version),
    };
  });
  return listReport(header, packages, outdated);
}

export async function globalUpdate(ctx: CommandContext, names: string[], options: ProjectUpdateOptions): Promise<CommandResult> {
  const { registry, store, header } = await start(ctx, options.registry);
  const client = await ctx.registry(registry);
  return store.locked(async () => {
    const installed = await store.read();
    assertInstalled(installed, names);
    const documents: DocumentMap = new Map();
    const plan = await planWithDocuments(client, documents, (docs) =>
      planUpdate(installed, planContextFor(null, NO_ENGINE, docs), { names, latest: options.latest ?? false }),
    );
    throwOnConflicts(plan.conflicts);
    const context = planContextFor(null, NO_ENGINE, documents);
    const base = {
      plan,
      engine: header.engine,
      engineLabel: LABEL,
      engineVersion: null,
      project: store.dir,
      registry,
      manifestName: store.manifestPath,
      backupPath: null,
    };
    if (options.dryRun) return updateReport({ ...base, mode: 'dry-run' });
    if (!options.save) {
      await fetchIntoCache(ctx, client, context, plan.updated);
      return updateReport({ ...base, mode: 'fetched' });
    }
    await installVersions(
      ctx,
      store,
      client,
      context,
      plan.updated.map((u) => ({ name: u.package, version: u.to })),
    );
    await store.write(plan.dependencies);
    return updateReport({ ...base, mode: 'saved' });
  });
}
