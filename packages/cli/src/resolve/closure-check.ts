/**
 * Whether the editor can resolve a set of manifest dependencies: the whole transitive closure,
 * as the Unity Package Manager resolves it. A version written in the manifest wins; a package
 * only dependencies ask for gets the highest version any of them asks for, and that exact
 * version has to be published and usable by the editor. Pure: it reads only the plan context.
 */
import semver from 'semver';
import { dependenciesOf, recordOf, type NeedsDocuments, type PlanContext } from './plan-context.js';
import type { Conflict } from './raise-dependencies.js';

export interface ClosureCheck {
  kind: 'plan';
  conflicts: Conflict[];
  /** The version the editor resolves for every package of the closure a queried registry serves. */
  resolved: Map<string, string>;
  /** Package → the packages (`name@version`) of the closure that ask for it. */
  requiredBy: Map<string, string[]>;
}

interface Requirement {
  version: string;
  /** `name@version` of the package that asks for it. */
  by: string;
}

/**
 * The conflicts in the closure of `roots` (names in `dependencies`, the manifest as it would be
 * written), or the documents still needed to tell.
 */
export function checkClosure(
  context: PlanContext,
  dependencies: Readonly<Record<string, string>>,
  roots: Iterable<string>,
): ClosureCheck | NeedsDocuments {
  const required = new Map<string, Requirement>();
  const missing = new Set<string>();
  const conflicts = new Map<string, Conflict>();
  const queue = [...roots];
  const processed = new Map<string, string>();
  const askers = new Map<string, Set<string>>();
  while (queue.length > 0) {
    const name = queue.shift()!;
    const version = dependencies[name] ?? required.get(name)?.version;
    if (version === undefined || processed.get(name) === version) continue;
    if (context.isBuiltIn(name) || !semver.valid(version)) continue;
    const document = context.documents.get(name);
    if (document === undefined) {
      missing.add(name);
      continue;
    }
    processed.set(name, version);
    // Not ours to check: the editor gets it from a registry pkg does not ask.
    if (document === null) continue;
    const dependent = `${name}@${version}`;
    for (const [dependency, wanted] of dependenciesOf(recordOf(context, name, version))) {
      if (context.isBuiltIn(dependency) || !semver.valid(wanted)) continue;
      askers.set(dependency, (askers.get(dependency) ?? new Set()).add(dependent));
      const listed = dependencies[dependency];
      if (listed !== undefined) {
        if (semver.valid(listed) && semver.lt(listed, wanted)) {
          conflicts.set(`${dependent}>${dependency}`, {
            package: dependent,
            requires: { name: dependency, version: wanted },
            reason: 'manifest-lower',
            version: listed,
            message: `version conflict: ${name} requires ${dependency}@${wanted}`,
          });
        }
        continue;
      }
      const before = required.get(dependency);
      if (before && semver.gte(before.version, wanted)) continue;
      required.set(dependency, { version: wanted, by: dependent });
      queue.push(dependency);
    }
  }
  if (missing.size > 0) return { kind: 'needs-documents', names: [...missing] };

  for (const [name, { version, by }] of required) {
    if (context.isBuiltIn(name)) continue;
    const document = context.documents.get(name);
    // A package its registry does not have at all: with routing known, that registry is one we
    // asked (not the engine maker's), so the editor will not find it either.
    const absent = document === null && context.isUnqueried !== undefined && !context.isUnqueried(name);
    if (!document && !absent) continue;
    const record = document ? recordOf(context, name, version) : undefined;
    const dependentName = by.slice(0, by.lastIndexOf('@'));
    const base = {
      package: by,
      requires: { name, version },
      message: `version conflict: ${dependentName} requires ${name}@${version}`,
    };
    if (!record) {
      conflicts.set(`${by}>${name}`, { ...base, reason: 'unavailable' });
    } else if (!context.isCompatible(record)) {
      conflicts.set(`${by}>${name}`, {
        ...base,
        reason: 'needs-newer-engine',
        version,
        engineRequirement: context.requirementOf(record) ?? 'a newer engine',
      });
    }
  }
  const resolved = new Map<string, string>();
  for (const [name, version] of processed) {
    if (context.documents.get(name)) resolved.set(name, dependencies[name] ?? required.get(name)?.version ?? version);
  }
  return {
    kind: 'plan',
    conflicts: [...conflicts.values()],
    resolved,
    requiredBy: new Map([...askers].map(([name, by]) => [name, [...by]])),
  };
}
