/**
 * `--global` for install, list, update and uninstall. Global packages belong to no project, so
 * no engine version limits them; everything else (version choice, dependency raises, integrity
 * checks, reports) is what the project commands do. Each package records the registry it came
 * from, and list and update ask that registry again; `--registry` narrows them to its packages.
 */
import semver from 'semver';
import { TarballCache } from '../cache/tarball-cache.js';
import type { CommandContext } from '../context.js';
import { normalizeRegistryUrl, sameRegistryUrl } from '../engines/registry-url.js';
import { ClientError } from '../errors/client-errors.js';
import { addReport, listReport, uninstallReport, type ListedPackage, type ProjectHeader } from '../reports/project-reports.js';
import type { CommandResult } from '../output/reporter.js';
import { updateReport } from '../reports/update-report.js';
import { throwOnConflicts } from '../project/conflicts.js';
import { planContextFor } from '../project/open-project.js';
import { fetchIntoCache, type ProjectUpdateOptions } from '../project/project-update.js';
import { planWithDocuments, type DocumentMap } from '../project/registry-documents.js';
import { RegistrySet } from '../project/registry-set.js';
import { parsePackageRequest, planAdd } from '../resolve/add-plan.js';
import { pickNewest } from '../resolve/pick-version.js';
import { recordOf, type PlanContext } from '../resolve/plan-context.js';
import { RegistryRouting } from '../resolve/registry-routing.js';
import { planUpdate } from '../resolve/update-plan.js';
import { askAdvisories, type KnownAdvisories } from '../project/installed-advisories.js';
import { GlobalPackages, type GlobalManifest } from './global-packages.js';

const NO_ENGINE = { text: null };
const LABEL = 'none (global packages)';

async function start(ctx: CommandContext, registryFlag: string | undefined) {
  const registry = await ctx.registryUrl(registryFlag);
  const store = new GlobalPackages(ctx.deps.fs, ctx.paths.dataDir, { sleep: ctx.deps.sleep, now: ctx.deps.now });
  const header: ProjectHeader = { engine: 'global', engineLabel: LABEL, project: store.dir, registry };
  return { registry, store, header };
}

/**
 * The registries of global packages: each installed one is asked of the registry it came from
 * (older records without one: the registry in effect), everything else of the registry in effect.
 */
function globalRegistries(
  ctx: CommandContext,
  registry: string,
  manifest: GlobalManifest,
  requested: ReadonlySet<string> = new Set(),
) {
  const routing = new RegistryRouting(
    { dependencies: {}, scopedRegistries: [] },
    { usesScopedRegistries: false, fallback: registry },
  );
  const fixed = new Map(Object.entries(manifest.registries).filter(([name]) => !requested.has(name)));
  return new RegistrySet(ctx, routing, { fixed });
}

function assertInstalled(installed: Record<string, string>, names: string[]): void {
  for (const name of names) {
    if (!(name in installed)) {
      throw new ClientError('GLOBAL_NOT_INSTALLED', { name });
    }
  }
}

/** Downloads, verifies and extracts each version, in order, each from its registry. */
async function installVersions(
  ctx: CommandContext,
  store: GlobalPackages,
  registries: RegistrySet,
  context: PlanContext,
  versions: { name: string; version: string }[],
): Promise<void> {
  const cache = new TarballCache(ctx.deps.fs, ctx.paths.cacheDir);
  for (const { name, version } of versions) {
    const record = recordOf(context, name, version);
    if (!record) throw new ClientError('VERSION_NOT_FOUND', { version, name });
    const tarball = await cache.fetch(await registries.client(registries.registryOf(name)), record);
    // A global package is unpacked from memory (safe-extract.ts); project installs keep only the file.
    await store.install(name, version, tarball.path);
  }
}

/** The registry of every package in `names`, as it was fetched, for the global manifest. */
function recorded(registries: RegistrySet, names: Iterable<string>): Record<string, string> {
  return Object.fromEntries([...names].map((name) => [name, registries.registryOf(name)]));
}

export async function globalInstall(ctx: CommandContext, specs: string[], registryFlag?: string): Promise<CommandResult> {
  const requests = specs.map(parsePackageRequest);
  const { registry, store, header } = await start(ctx, registryFlag);
  return store.locked(async () => {
    const manifest = await store.readAll();
    const registries = globalRegistries(ctx, registry, manifest, new Set(requests.map((r) => r.name)));
    const documents: DocumentMap = new Map();
    const plan = await planWithDocuments(registries, documents, (docs) =>
      planAdd(manifest.dependencies, requests, planContextFor(null, NO_ENGINE, docs), { engineLabel: LABEL }),
    );
    throwOnConflicts(plan.conflicts, 'add');
    const versions = [
      ...plan.added.map((a) => ({ name: a.package, version: a.version })),
      ...plan.raised.map((r) => ({ name: r.package, version: r.to })),
    ];
    await installVersions(ctx, store, registries, planContextFor(null, NO_ENGINE, documents), versions);
    await store.write(plan.dependencies, {
      ...manifest.registries,
      ...recorded(
        registries,
        versions.map((v) => v.name),
      ),
    });
    return addReport(header, plan, null);
  });
}

export async function globalUninstall(ctx: CommandContext, names: string[], registryFlag?: string): Promise<CommandResult> {
  const { registry, store, header } = await start(ctx, registryFlag);
  return store.locked(async () => {
    const manifest = await store.readAll();
    const installed = manifest.dependencies;
    assertInstalled(installed, names);
    assertFromRegistry(manifest, names, registry, registryFlag);
    const remaining = { ...installed };
    for (const name of names) {
      await store.remove(name);
      delete remaining[name];
    }
    await store.write(remaining, manifest.registries);
    const removed = names.map((name) => ({ package: name, version: installed[name]! }));
    return uninstallReport(header, { kind: 'plan', removed, dependencies: remaining, registryEntries: [] }, null);
  });
}

/** With `--registry`, a package named on the command line must have come from it. */
function assertFromRegistry(
  manifest: GlobalManifest,
  names: readonly string[],
  registry: string,
  registryFlag: string | undefined,
) {
  if (registryFlag === undefined) return;
  for (const name of names) {
    const from = manifest.registries[name] ?? registry;
    if (!sameRegistryUrl(from, registry)) {
      throw new ClientError('GLOBAL_NOT_FROM_REGISTRY', { name, registry, source: from });
    }
  }
}

/** With `--registry`, only the packages that came from it. */
function inRun(manifest: GlobalManifest, registry: string, registryFlag: string | undefined) {
  return (name: string) =>
    registryFlag === undefined || sameRegistryUrl(manifest.registries[name] ?? registry, normalizeRegistryUrl(registry));
}

export async function globalList(ctx: CommandContext, outdated: boolean, registryFlag?: string): Promise<CommandResult> {
  const { registry, store, header } = await start(ctx, registryFlag);
  const manifest = await store.readAll();
  const registries = globalRegistries(ctx, registry, manifest);
  const names = Object.keys(manifest.dependencies).filter(inRun(manifest, registry, registryFlag));
  const documents: DocumentMap = new Map();
  await registries.fetch(names, documents);
  const context = planContextFor(null, NO_ENGINE, documents);
  const run = new Set(names);
  // As in a project: a registry that cannot say which advisories apply costs only the marks.
  const advisories = await askAdvisories(
    { set: registries, inRun: (name) => run.has(name) },
    new Map(names.filter((name) => documents.get(name)).map((name) => [name, [manifest.dependencies[name]!]])),
    true,
  );
  warnAdvisories(ctx, advisories, 'its packages are shown without them');
  const packages: ListedPackage[] = names.map((name) => {
    const version = manifest.dependencies[name]!;
    const latest = documents.get(name) ? pickNewest(context, name) : null;
    const affecting = documents.get(name) ? advisories.affecting(name, version) : [];
    return {
      package: name,
      requested: version,
      resolved: version,
      latest_compatible: latest,
      status: documents.get(name) === null ? 'not-in-registry' : 'registry',
      outdated: latest !== null && semver.valid(version) !== null && semver.gt(latest, version),
      registry: registries.registryOf(name),
      ...(affecting.length > 0 ? { advisories: affecting } : {}),
    };
  });
  // As in a project: the registries asked, when they are not just the one in effect.
  const asked = registries.registriesAsked;
  return listReport({ ...header, ...(asked.length > 0 ? { registries: asked } : {}) }, packages, outdated);
}

export async function globalUpdate(ctx: CommandContext, names: string[], options: ProjectUpdateOptions): Promise<CommandResult> {
  const { registry, store, header } = await start(ctx, options.registry);
  return store.locked(async () => {
    const manifest = await store.readAll();
    const installed = manifest.dependencies;
    assertInstalled(installed, names);
    assertFromRegistry(manifest, names, registry, options.registry);
    const registries = globalRegistries(ctx, registry, manifest);
    const only = new Set(Object.keys(installed).filter(inRun(manifest, registry, options.registry)));
    const documents: DocumentMap = new Map();
    // The advisories of every published version of what may move, so that the plan prefers a
    // version none affects and the report marks those that are (as a project's update does).
    const candidates = (names.length > 0 ? names : Object.keys(installed)).filter((name) => only.has(name));
    await registries.fetch(candidates, documents);
    const advisories = await askAdvisories(
      { set: registries, inRun: (name) => only.has(name) },
      new Map(candidates.map((name) => [name, Object.keys(documents.get(name)?.versions ?? {})])),
      true,
    );
    warnAdvisories(ctx, advisories, 'the update does not take them into account');
    const isAffected = (name: string, version: string) => advisories.affecting(name, version).length > 0;
    const contextOf = (docs: DocumentMap) => ({ ...planContextFor(null, NO_ENGINE, docs), isAffected });
    const plan = await planWithDocuments(registries, documents, (docs) =>
      planUpdate(installed, contextOf(docs), { names, latest: options.latest ?? false, only }),
    );
    throwOnConflicts(plan.conflicts, 'update');
    const context = contextOf(documents);
    const base = {
      advisories: (name: string, version: string) => advisories.affecting(name, version),
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
    const clientFor = (record: { name: string }) => registries.client(registries.registryOf(record.name));
    if (!options.save) {
      await fetchIntoCache(ctx, clientFor, context, plan.updated);
      return updateReport({ ...base, mode: 'fetched' });
    }
    const versions = plan.updated.map((u) => ({ name: u.package, version: u.to }));
    await installVersions(ctx, store, registries, context, versions);
    await store.write(plan.dependencies, {
      ...manifest.registries,
      ...recorded(
        registries,
        versions.map((v) => v.name),
      ),
    });
    return updateReport({ ...base, mode: 'saved' });
  });
}

/** Says which registries could not say which advisories apply, and what registries noted of their answers. */
function warnAdvisories(ctx: CommandContext, advisories: KnownAdvisories, consequence: string): void {
  for (const [url, err] of advisories.failed) {
    ctx.reporter.warn(`${url} could not say which advisories apply, ${consequence}: ${err.message}`);
  }
  for (const notice of advisories.notices) ctx.reporter.warn(notice);
}
