/**
 * The update plan: a pure function of the manifest's dependencies, the registry's documents and
 * the engine's rules. `pkg update` prints it (`--dry-run`) or hands it to the applier.
 */
import semver from 'semver';
import type { ScopedRegistry } from '../engines/engine.js';
import { registryClosure, type NeedsDocuments, type PlanContext } from './plan-context.js';
import { completeRegistryEntry } from './registry-scopes.js';
import { blockedByEngine, newerMajor, pickUpdate } from './pick-version.js';
import { raiseDependencies, type Conflict } from './raise-dependencies.js';

/** Why a package keeps its version. */
export type UnchangedStatus =
  /** Already the newest version the update may pick. */
  | 'latest'
  /** Ships with the engine. */
  | 'built-in'
  /** The registry does not have it (Unity's own registry or another one serves it). */
  | 'not-in-registry'
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
  /** When not empty, the plan cannot be applied. */
  conflicts: Conflict[];
  /** The dependencies after the update, in manifest order. */
  dependencies: Record<string, string>;
  /** Our scoped-registry entry, completed for what the new versions bring; absent when unchanged. */
  registryEntry?: ScopedRegistry;
}

export interface UpdateOptions {
  /** Packages to update; all dependencies when empty. Every name must be a dependency. */
  names: readonly string[];
  /** Cross major versions. */
  latest: boolean;
  /**
   * The registry in use and the manifest's scoped registries, for engines that have them: new
   * versions' dependencies served by the registry are added to its entry.
   */
  scopes?: { registryUrl: string; entries: readonly ScopedRegistry[] };
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
  const missing = registryCandidates(context, dependencies).filter((name) => !context.documents.has(name));
  if (missing.length > 0) return { kind: 'needs-documents', names: missing };

  const selected = new Set(options.names.length > 0 ? options.names : Object.keys(dependencies));
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
  let registryEntry: ScopedRegistry | undefined;
  if (options.scopes && updated.length > 0) {
    const closure = registryClosure(
      context,
      updated.map((u) => ({ name: u.package, version: u.to })),
    );
    if (closure.missing.size > 0) return { kind: 'needs-documents', names: [...closure.missing] };
    registryEntry = completeRegistryEntry(options.scopes.entries, options.scopes.registryUrl, closure.names);
  }
  const order = Object.keys(dependencies);
  return {
    kind: 'plan',
    updated,
    unchanged: order.filter((n) => unchanged.has(n)).map((n) => unchanged.get(n)!),
    conflicts: raised.conflicts,
    dependencies: final,
    ...(registryEntry ? { registryEntry } : {}),
  };
}

function statusWithoutRegistry(context: PlanContext, name: string, version: string): UnchangedStatus | null {
  if (context.isBuiltIn(name)) return 'built-in';
  if (!semver.valid(version)) return 'external';
  if (context.documents.get(name) === null) return 'not-in-registry';
  return null;
}
