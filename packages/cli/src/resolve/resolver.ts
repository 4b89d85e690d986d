/**
 * The one resolver of `add`, `update`, `install` and `uninstall`, in projects and for global
 * packages: what the project should hold after the command, as arborist's ideal tree is for npm.
 * An intent (add these, update those, remove those, install what the manifest says) first decides
 * the manifest's own versions, with the engine's rules (compatible editor versions, caret ranges,
 * `--latest`); then the whole closure of that manifest is resolved, once, as the engine itself
 * will resolve it, and the scoped-registry entries are completed or shrunk from that closure. A
 * conflict anywhere in it is reported here, so `add` and `update` can never write a manifest that
 * `install` refuses. Pure: it reads only the plan context and says which documents it still needs.
 */
import semver from 'semver';
import type { VersionRecord } from '@pkg/protocol';
import type { ScopedRegistry } from '../engines/engine.js';
import { parsePackageRequest, planAdd, type AddPlan, type PackageRequest } from './add-plan.js';
import { checkClosure } from './closure-check.js';
import { resolveInstallSet } from './one-version-closure.js';
import { dependenciesOf, recordOf, registryClosure, type NeedsDocuments, type PlanContext } from './plan-context.js';
import type { Conflict } from './raise-dependencies.js';
import { completeRegistryEntries, shrinkRegistryEntries, type ScopeTargets } from './registry-scopes.js';
import { planUninstall, type UninstallPlan } from './uninstall-plan.js';
import { planUpdate, type UpdatePlan } from './update-plan.js';

export { parsePackageRequest, type PackageRequest };

/** What the command asks for. */
export type Intent =
  | { kind: 'add'; requests: readonly PackageRequest[]; latest: boolean }
  | {
      kind: 'update';
      /** Packages to update; every dependency when empty. */
      names: readonly string[];
      latest: boolean;
      /** `--registry`: only that registry's packages take part. */
      only?: ReadonlySet<string>;
    }
  | { kind: 'install'; only?: ReadonlySet<string> }
  | { kind: 'uninstall'; names: readonly string[] };

/**
 * How the engine turns a manifest into the packages of a project:
 * - `manifest-wins` (Unity's Package Manager): a version written in the manifest wins; a package
 *   only dependencies ask for gets the highest version any of them asks for, exactly;
 * - `one-folder` (Godot, Unreal): a package is one folder, so one version, which must meet every
 *   dependent within its major; `pkg` picks it, keeping the locked one while it fits;
 * - `direct`: the manifest's own entries and nothing they need. Global packages are installed
 *   alone (their dependencies never are); and Unity's `uninstall` with no scoped registry to
 *   shrink needs no more, so it asks no registry.
 */
export type ClosureRule = 'manifest-wins' | 'one-folder' | 'direct';

export interface EngineRules {
  /** How the engine and its version read in messages, e.g. `Unity 2022.3.10f1`. */
  engineLabel: string;
  closure: ClosureRule;
  /** Engines with scoped registries: where new names must be listed. */
  scopes?: ScopeTargets;
  /** `one-folder`: the versions the lock holds now, kept while they fit. */
  locked?: Readonly<Record<string, string>>;
}

/** One package the project will hold. */
export interface TargetPackage {
  name: string;
  version: string;
  /** Listed in the manifest (not only needed by another package). */
  direct: boolean;
  /** The packages (`name@version`) that need it. */
  requiredBy: string[];
  /**
   * Its version's record: what to download and verify. Null only under the `direct` rule for an
   * entry whose document the command did not need (an uninstall fetches none).
   */
  record: VersionRecord | null;
}

export interface Resolution {
  kind: 'plan';
  intent: Intent['kind'];
  /** The manifest's dependencies after the command, in manifest order (new ones last). */
  dependencies: Record<string, string>;
  /** Every package of the closure that a registry `pkg` asks serves, with its version. */
  target: Map<string, TargetPackage>;
  /** Why the target cannot be installed as it is; empty when it can. */
  conflicts: Conflict[];
  /**
   * Scoped-registry entries that must grow (add, update) or shrink (uninstall: an empty scope
   * list means the entry goes); empty when none changes.
   */
  registryEntries: ScopedRegistry[];
  /** What `add` decided about the requested packages. */
  add?: AddPlan;
  /** What `update` decided about each package. */
  update?: UpdatePlan;
  /** What `uninstall` removes from the manifest. */
  uninstall?: UninstallPlan;
}

/** Manifest entries that name a registry version (not built-ins, file paths or git URLs). */
function registryRoots(context: PlanContext, dependencies: Record<string, string>, only?: ReadonlySet<string>): string[] {
  return Object.entries(dependencies)
    .filter(([name, version]) => !context.isBuiltIn(name) && semver.valid(version) && (only === undefined || only.has(name)))
    .map(([name]) => name);
}

/** Conflicts seen by two steps once. */
function merged(...lists: Conflict[][]): Conflict[] {
  const seen = new Set<string>();
  return lists.flat().filter((c) => {
    const key = `${c.message}|${c.requires.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function resolve(
  dependencies: Readonly<Record<string, string>>,
  intent: Intent,
  context: PlanContext,
  rules: EngineRules,
): Resolution | NeedsDocuments {
  // 1. The manifest's own versions, and the entries whose versions this command chose.
  let final: Record<string, string> = { ...dependencies };
  let stepConflicts: Conflict[] = [];
  let chosen: string[] = [];
  let add: AddPlan | undefined;
  let update: UpdatePlan | undefined;
  let uninstall: UninstallPlan | undefined;
  if (intent.kind === 'add') {
    const plan = planAdd(dependencies, intent.requests, context, { engineLabel: rules.engineLabel, latest: intent.latest });
    if (plan.kind !== 'plan') return plan;
    add = plan;
    final = plan.dependencies;
    stepConflicts = plan.conflicts;
    chosen = [...plan.added, ...plan.alreadyPresent, ...plan.raised].map((p) => p.package);
  } else if (intent.kind === 'update') {
    const plan = planUpdate(dependencies, context, {
      names: intent.names,
      latest: intent.latest,
      ...(intent.only ? { only: intent.only } : {}),
    });
    if (plan.kind !== 'plan') return plan;
    update = plan;
    final = plan.dependencies;
    stepConflicts = plan.conflicts;
    chosen = plan.updated.map((u) => u.package);
  } else if (intent.kind === 'uninstall') {
    uninstall = planUninstall(dependencies, intent.names);
    final = uninstall.dependencies;
  }

  // 2. The whole closure of that manifest, as the engine resolves it: the one closure of every
  // command. Under Unity's rule the entries just chosen go first, so that their conflicts are
  // the ones reported first; one-folder engines keep the manifest's order, in which packages
  // are then installed and enabled in the project file.
  const only = intent.kind === 'install' || intent.kind === 'update' ? intent.only : undefined;
  const roots = registryRoots(context, final, rules.closure === 'direct' ? undefined : only);
  const ordered =
    rules.closure === 'manifest-wins' ? [...new Set([...chosen.filter((name) => roots.includes(name)), ...roots])] : roots;
  const closure = targetOf(context, final, ordered, rules);
  if (closure.kind !== 'plan') return closure;
  const { target } = closure;

  // 3. The scoped-registry entries that closure needs.
  let registryEntries: ScopedRegistry[] = [];
  if (rules.scopes && uninstall) {
    const shrunk = shrunkEntries(context, rules.scopes, dependencies, final, target);
    if (shrunk.kind !== 'plan') return shrunk;
    registryEntries = shrunk.entries;
  } else if (rules.scopes && chosen.length > 0) {
    registryEntries = completeRegistryEntries(rules.scopes, reachable(target, chosen));
  }
  return {
    kind: 'plan',
    intent: intent.kind,
    dependencies: final,
    target,
    conflicts: merged(stepConflicts, closure.conflicts),
    registryEntries,
    ...(add ? { add: { ...add, registryEntries } } : {}),
    ...(update ? { update: { ...update, registryEntries } } : {}),
    ...(uninstall ? { uninstall: { ...uninstall, registryEntries } } : {}),
  };
}

/** Every package of the closure of `roots` (names in `final`) with its version, by the engine's rule. */
function targetOf(
  context: PlanContext,
  final: Readonly<Record<string, string>>,
  roots: readonly string[],
  rules: EngineRules,
): { kind: 'plan'; target: Map<string, TargetPackage>; conflicts: Conflict[] } | NeedsDocuments {
  const target = new Map<string, TargetPackage>();
  if (rules.closure === 'direct') {
    for (const name of roots) {
      const version = final[name]!;
      target.set(name, { name, version, direct: true, requiredBy: [], record: recordOf(context, name, version) ?? null });
    }
    return { kind: 'plan', target, conflicts: [] };
  }
  if (rules.closure === 'manifest-wins') {
    const checked = checkClosure(context, final, roots);
    if (checked.kind !== 'plan') return checked;
    for (const [name, version] of checked.resolved) {
      const record = recordOf(context, name, version);
      // A version the registry lacks is a conflict above, or the manifest's own error for install.
      if (!record) continue;
      target.set(name, { name, version, direct: name in final, requiredBy: checked.requiredBy.get(name) ?? [], record });
    }
    return { kind: 'plan', target, conflicts: checked.conflicts };
  }
  const direct = Object.fromEntries(roots.map((name) => [name, final[name]!]));
  const set = resolveInstallSet(direct, context, rules.locked ?? {}, rules.engineLabel);
  if (set.kind !== 'plan') return set;
  for (const [name, record] of set.records) {
    target.set(name, {
      name,
      version: record.version,
      direct: name in final,
      requiredBy: set.requiredBy.get(name) ?? [],
      record,
    });
  }
  return { kind: 'plan', target, conflicts: set.conflicts };
}

/** The packages of the target that `roots` bring, themselves included, as the target resolves them. */
function reachable(target: ReadonlyMap<string, TargetPackage>, roots: readonly string[]): Set<string> {
  const names = new Set<string>();
  const queue = [...roots];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const entry = target.get(name);
    if (!entry || names.has(name)) continue;
    names.add(name);
    if (entry.record) queue.push(...dependenciesOf(entry.record).map(([dependency]) => dependency));
  }
  return names;
}

/**
 * `uninstall`: the scopes nothing left needs. What stays is the target (the closure of the
 * manifest after) and the manifest's own names, whichever registry serves them; what the removed
 * packages brought is their dependencies as published, which the target no longer holds.
 */
function shrunkEntries(
  context: PlanContext,
  scopes: ScopeTargets,
  before: Readonly<Record<string, string>>,
  final: Readonly<Record<string, string>>,
  target: ReadonlyMap<string, TargetPackage>,
): { kind: 'plan'; entries: ScopedRegistry[] } | NeedsDocuments {
  const removed = Object.keys(before).filter((name) => !(name in final));
  const released = registryClosure(
    context,
    removed.filter((name) => semver.valid(before[name])).map((name) => ({ name, version: before[name]! })),
  );
  if (released.missing.size > 0) return { kind: 'needs-documents', names: [...released.missing] };
  // A removed package the registry does not know still had its own name in our scopes.
  for (const name of removed) released.names.add(name);
  const kept = new Set([...target.keys(), ...Object.keys(final)]);
  return { kind: 'plan', entries: shrinkRegistryEntries(scopes.entries, released.names, kept) };
}
