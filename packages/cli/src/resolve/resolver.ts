/**
 * The one resolver of `add`, `update` and `install`: what the project should hold after the
 * command, as arborist's ideal tree is for npm. An intent (add these, update those, install what
 * the manifest says) first decides the manifest's own versions, with the engine's rules
 * (compatible editor versions, caret ranges, `--latest`); then the whole closure of that manifest
 * is resolved as the engine itself will resolve it. A conflict anywhere in it is reported here,
 * so `add` and `update` can never write a manifest that `install` refuses. Pure: it reads only
 * the plan context and says which documents it still needs.
 */
import semver from 'semver';
import type { VersionRecord } from '@pkg/protocol';
import type { ScopedRegistry } from '../engines/engine.js';
import { parsePackageRequest, planAdd, type AddPlan, type PackageRequest } from './add-plan.js';
import { checkClosure } from './closure-check.js';
import { resolveInstallSet } from './one-version-closure.js';
import { recordOf, type NeedsDocuments, type PlanContext } from './plan-context.js';
import type { Conflict } from './raise-dependencies.js';
import type { ScopeTargets } from './registry-scopes.js';
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
  | { kind: 'install'; only?: ReadonlySet<string> };

/**
 * How the engine turns a manifest into the packages of a project:
 * - `manifest-wins` (Unity's Package Manager): a version written in the manifest wins; a package
 *   only dependencies ask for gets the highest version any of them asks for, exactly;
 * - `one-folder` (Godot, Unreal): a package is one folder, so one version, which must meet every
 *   dependent within its major; `pkg` picks it, keeping the locked one while it fits.
 */
export type ClosureRule = 'manifest-wins' | 'one-folder';

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
  /** Its version's record: what to download and verify. */
  record: VersionRecord;
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
  /** Scoped-registry entries that must grow; empty when none changes. */
  registryEntries: ScopedRegistry[];
  /** What `add` decided about the requested packages. */
  add?: AddPlan;
  /** What `update` decided about each package. */
  update?: UpdatePlan;
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
  // 1. The manifest's own versions.
  let final: Record<string, string> = { ...dependencies };
  let stepConflicts: Conflict[] = [];
  let registryEntries: ScopedRegistry[] = [];
  let add: AddPlan | undefined;
  let update: UpdatePlan | undefined;
  if (intent.kind === 'add') {
    const plan = planAdd(dependencies, intent.requests, context, {
      engineLabel: rules.engineLabel,
      latest: intent.latest,
      ...(rules.scopes ? { scopes: rules.scopes } : {}),
    });
    if (plan.kind !== 'plan') return plan;
    add = plan;
    final = plan.dependencies;
    stepConflicts = plan.conflicts;
    registryEntries = plan.registryEntries;
  } else if (intent.kind === 'update') {
    const plan = planUpdate(dependencies, context, {
      names: intent.names,
      latest: intent.latest,
      ...(rules.scopes ? { scopes: rules.scopes } : {}),
      ...(intent.only ? { only: intent.only } : {}),
    });
    if (plan.kind !== 'plan') return plan;
    update = plan;
    final = plan.dependencies;
    stepConflicts = plan.conflicts;
    registryEntries = plan.registryEntries;
  }

  // 2. The whole closure of that manifest, as the engine resolves it.
  const only = intent.kind === 'add' ? undefined : intent.only;
  const roots = registryRoots(context, final, only);
  const target = new Map<string, TargetPackage>();
  let closureConflicts: Conflict[];
  if (rules.closure === 'manifest-wins') {
    const checked = checkClosure(context, final, roots);
    if (checked.kind !== 'plan') return checked;
    closureConflicts = checked.conflicts;
    for (const [name, version] of checked.resolved) {
      const record = recordOf(context, name, version);
      // A version the registry lacks is a conflict above, or the manifest's own error for install.
      if (!record) continue;
      target.set(name, { name, version, direct: name in final, requiredBy: checked.requiredBy.get(name) ?? [], record });
    }
  } else {
    const direct = Object.fromEntries(roots.map((name) => [name, final[name]!]));
    const set = resolveInstallSet(direct, context, rules.locked ?? {}, rules.engineLabel);
    if (set.kind !== 'plan') return set;
    closureConflicts = set.conflicts;
    for (const [name, record] of set.records) {
      target.set(name, {
        name,
        version: record.version,
        direct: name in final,
        requiredBy: set.requiredBy.get(name) ?? [],
        record,
      });
    }
  }
  return {
    kind: 'plan',
    intent: intent.kind,
    dependencies: final,
    target,
    conflicts: merged(stepConflicts, closureConflicts),
    registryEntries,
    ...(add ? { add } : {}),
    ...(update ? { update } : {}),
  };
}
