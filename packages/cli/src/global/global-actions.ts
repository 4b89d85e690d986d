/**
 * `--global` for install, list, update and uninstall. Global packages belong to no project, so
 * no engine version limits them; everything else is what the project commands do: one resolve
 * (the resolver's `direct` rule: each package is installed alone, never its dependencies), its
 * diff, and the global applier below. Each package records the registry it came from, and list
 * and update ask that registry again; `--registry` narrows them to its packages.
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
import { parsePackageRequest } from '../resolve/add-plan.js';
import { diffResolution } from '../resolve/diff.js';
import { pickNewest } from '../resolve/pick-version.js';
import { RegistryRouting } from '../resolve/registry-routing.js';
import { resolve, type EngineRules, type Intent, type Resolution } from '../resolve/resolver.js';
import type { UpdatePlan } from '../resolve/update-plan.js';
import { askAdvisories, type KnownAdvisories } from '../project/installed-advisories.js';
import { GlobalPackages, type GlobalManifest } from './global-packages.js';

const NO_ENGINE = { text: null };
const LABEL = 'none (global packages)';
const GLOBAL_RULES: EngineRules = { engineLabel: LABEL, closure: 'direct' };

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

/** The global packages resolved for `intent`, the documents it needs fetched from each one's registry. */
function resolveGlobal(
  registries: RegistrySet,
  documents: DocumentMap,
  installed: Record<string, string>,
  intent: Intent,
  isAffected?: (name: string, version: string) => boolean,
) {
  return planWithDocuments(registries, documents, (docs) =>
    resolve(installed, intent, { ...planContextFor(null, NO_ENGINE, docs), ...(isAffected ? { isAffected } : {}) }, GLOBAL_RULES),
  );
}

/**
 * The applier of global packages: the resolution's diff, each new version downloaded into the
 * cache, verified, and extracted from its file there (streamed) beside the old one and swapped
 * in, each package that goes removed, then the manifest written with the registry of each.
 */
async function applyGlobal(
  ctx: CommandContext,
  store: GlobalPackages,
  registries: RegistrySet,
  manifest: GlobalManifest,
  resolution: Resolution,
): Promise<void> {
  const held = Object.fromEntries(Object.entries(manifest.dependencies).filter(([, version]) => semver.valid(version)));
  const diff = diffResolution({ dependencies: manifest.dependencies, held }, resolution);
  const cache = new TarballCache(ctx.deps.fs, ctx.paths.cacheDir);
  const installed: string[] = [];
  for (const { package: name, to } of diff.packages) {
    if (to === null) {
      await store.remove(name);
      continue;
    }
    const record = resolution.target.get(name)?.record;
    if (!record) throw new ClientError('VERSION_NOT_FOUND', { version: to, name });
    const tarball = await cache.fetch(await registries.client(registries.registryOf(name)), record);
    await store.install(name, to, tarball.path);
    installed.push(name);
  }
  await store.write(resolution.dependencies, { ...manifest.registries, ...recorded(registries, installed) });
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
    const resolution = await resolveGlobal(registries, new Map(), manifest.dependencies, {
      kind: 'add',
      requests,
      latest: false,
    });
    throwOnConflicts(resolution.conflicts, 'add');
    await applyGlobal(ctx, store, registries, manifest, resolution);
    return addReport(header, resolution.add!, null);
  });
}

export async function globalUninstall(ctx: CommandContext, names: string[], registryFlag?: string): Promise<CommandResult> {
  const { registry, store, header } = await start(ctx, registryFlag);
  return store.locked(async () => {
    const manifest = await store.readAll();
    assertInstalled(manifest.dependencies, names);
    assertFromRegistry(manifest, names, registry, registryFlag);
    const registries = globalRegistries(ctx, registry, manifest);
    // The `direct` rule asks no registry: removing needs none.
    const resolution = await resolveGlobal(registries, new Map(), manifest.dependencies, { kind: 'uninstall', names });
    await applyGlobal(ctx, store, registries, manifest, resolution);
    return uninstallReport(header, resolution.uninstall!, null);
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
    // The advisories of every published version of what may move, so that the resolution prefers
    // a version none affects and the report marks those that are (as a project's update does).
    const candidates = (names.length > 0 ? names : Object.keys(installed)).filter((name) => only.has(name));
    await registries.fetch(candidates, documents);
    const advisories = await askAdvisories(
      { set: registries, inRun: (name) => only.has(name) },
      new Map(candidates.map((name) => [name, Object.keys(documents.get(name)?.versions ?? {})])),
      true,
    );
    warnAdvisories(ctx, advisories, 'the update does not take them into account');
    const isAffected = (name: string, version: string) => advisories.affecting(name, version).length > 0;
    const resolution = await resolveGlobal(
      registries,
      documents,
      installed,
      { kind: 'update', names, latest: options.latest ?? false, only },
      isAffected,
    );
    throwOnConflicts(resolution.conflicts, 'update');
    const plan: UpdatePlan = { ...resolution.update!, conflicts: resolution.conflicts };
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
      await fetchIntoCache(ctx, clientFor, planContextFor(null, NO_ENGINE, documents), plan.updated);
      return updateReport({ ...base, mode: 'fetched' });
    }
    await applyGlobal(ctx, store, registries, manifest, resolution);
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
