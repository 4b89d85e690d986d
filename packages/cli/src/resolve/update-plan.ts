/**
 * The update plan: a pure function of the manifest's dependencies, the registry's documents and
 * the engine's rules, the first step of the resolver (`resolver.ts`), which then resolves the
 * closure and the scoped-registry entries once for every command. `pkg update` prints it
 * (`--dry-run`) or hands the resolution to the applier.
 */
import semver from 'semver';
import type { ScopedRegistry } from '../engines/engine.js';
import type { NeedsDocuments, PlanContext } from './plan-context.js';
import { blockedByEngine, newerMajor, pickUpdate } from './pick-version.js';
import { raiseDependencies, type Conflict } from './raise-dependencies.js';

/** Why a package keeps its version. */
export type UnchangedStatus =
  /** The newest version there is: nothing newer exists. */
  | 'latest'
  /** The newest of its major; a higher major exists, which only `--latest` takes. */
  | 'newer-major'
  /** A newer version exists but needs a newer engine than the project's. */
  | 'needs-newer-engine'
  /** Ships with the engine. */
  | 'built-in'
  /** The registry that serves it does not have it. */
  | 'not-in-registry'
  /** The engine maker's registry serves it (Unity's): the editor updates it, pkg does not ask. */
  | 'unity-registry'
  /** The manifest names a file path or git URL, not a registry version. */
  | 'external';

export interface PlannedUpdate {
  package: string;
  from: string;
  to: string;
  /** Set when the package was raised because a new version of another needs it (`name@version`). */
  requiredBy?: string;
  /** A version newer than `to` that the project's engine is too old for. */
  needsNewerEngine?: { version: string; requires: string };
}

export interface UnchangedPackage {
  package: string;
  version: string;
  status: UnchangedStatus;
  /** The newest usable version of a higher major, which only `--latest` takes. */
  newerMajor?: string;
  /** A newer version the project's engine is too old for. */
  needsNewerEngine?: { version: string; requires: string };
}

export interface UpdatePlan {
  kind: 'plan';
  /** In manifest order. */
  updated: PlannedUpdate[];
  /** In manifest order. */
  unchanged: UnchangedPackage[];
  /** When not empty, the plan cannot be applied (from `planUpdate`: the raises; the resolver adds the closure's). */
  conflicts: Conflict[];
  /** The dependencies after the update, in manifest order. */
  dependencies: Record<string, string>;
  /**
   * Scoped-registry entries completed for what the new versions bring; empty when none changes.
   * Set by the resolver, from the closure (empty from `planUpdate`).
   */
  registryEntries: ScopedRegistry[];
}

export interface UpdateOptions {
  /** Packages to update; all dependencies when empty. Every name must be a dependency. */
  names: readonly string[];
  /** Cross major versions. */
  latest: boolean;
  /**
   * The only packages this run may touch (`--registry`: that registry's packages); every
   * dependency when absent. `names` narrows it further.
   */
  only?: ReadonlySet<string>;
}

/** Registry packages the plan has to know: every manifest dependency with a registry version. */
function registryCandidates(context: PlanContext, dependencies: Record<string, string>): string[] {
  return Object.entries(dependencies)
    .filter(([name, version]) => !context.isBuiltIn(name) && semver.valid(version))
    .map(([name]) => name);
}

export function planUpdate(
  dependencies: Readonly<Record<string, string>>,
  context: PlanContext,
  options: UpdateOptions,
): UpdatePlan | NeedsDocuments {
  const inScope = (name: string) => options.only === undefined || options.only.has(name);
  const missing = registryCandidates(context, dependencies).filter((name) => inScope(name) && !context.documents.has(name));
  if (missing.length > 0) return { kind: 'needs-documents', names: missing };

  const selected = new Set((options.names.length > 0 ? options.names : Object.keys(dependencies)).filter(inScope));
  const final: Record<string, string> = { ...dependencies };
  const unchanged = new Map<string, UnchangedPackage>();
  const direct: string[] = [];
  for (const [name, version] of Object.entries(dependencies)) {
    if (!selected.has(name)) continue;
    const status = statusWithoutRegistry(context, name, version);
    if (status) {
      unchanged.set(name, { package: name, version, status });
      continue;
    }
    const target = pickUpdate(context, name, version, options.latest);
    if (target !== null) {
      final[name] = target;
      direct.push(name);
      continue;
    }
    const entry: UnchangedPackage = { package: name, version, status: 'latest' };
    const major = options.latest ? null : newerMajor(context, name, version);
    if (major) entry.newerMajor = major;
    const blocked = blockedByEngine(context, name, version, options.latest);
    if (blocked) entry.needsNewerEngine = blocked;
    // `latest` only when nothing newer exists at all.
    if (major) entry.status = 'newer-major';
    else if (blocked) entry.status = 'needs-newer-engine';
    unchanged.set(name, entry);
  }

  const raised = raiseDependencies(context, dependencies, final, direct, options.latest);
  if (raised.missing.size > 0) return { kind: 'needs-documents', names: [...raised.missing] };
  const requiredBy = new Map(raised.raises.map((r) => [r.name, r.requiredBy]));

  const updated: PlannedUpdate[] = [];
  for (const [name, from] of Object.entries(dependencies)) {
    const to = final[name]!;
    if (to === from) continue;
    unchanged.delete(name);
    const update: PlannedUpdate = { package: name, from, to };
    const blocked = blockedByEngine(context, name, from, options.latest);
    if (blocked && semver.gt(blocked.version, to)) update.needsNewerEngine = blocked;
    const reason = requiredBy.get(name);
    // A raise above the version the package's own update picked is what the dependent needs.
    if (reason !== undefined) update.requiredBy = reason;
    updated.push(update);
  }
  const order = Object.keys(dependencies);
  return {
    kind: 'plan',
    updated,
    unchanged: order.filter((n) => unchanged.has(n)).map((n) => unchanged.get(n)!),
    conflicts: raised.conflicts,
    dependencies: final,
    registryEntries: [],
  };
}

function statusWithoutRegistry(context: PlanContext, name: string, version: string): UnchangedStatus | null {
  if (context.isBuiltIn(name)) return 'built-in';
  if (!semver.valid(version)) return 'external';
  if (context.isUnqueried?.(name)) return 'unity-registry';
  if (context.documents.get(name) === null) return 'not-in-registry';
  return null;
}
