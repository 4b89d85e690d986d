/**
 * After some manifest versions change, the packages they depend on may have to follow: the
 * Unity Package Manager lets a version written in the manifest win over what dependencies ask
 * for, so a dependency listed there at a lower version than a new version needs must be raised
 * in the manifest too. This module computes those raises, and the conflicts when one is not allowed.
 */
import semver from 'semver';
import { dependenciesOf, recordAtLeast, type PlanContext } from './plan-context.js';
import { pickRaise } from './pick-version.js';

export interface Conflict {
  /** The package whose new version needs the raise, as `name@version`. */
  package: string;
  /** The dependency and the version it needs. */
  requires: { name: string; version: string };
  reason: 'crosses-major' | 'unavailable' | 'needs-newer-engine' | 'breaks-dependent' | 'manifest-lower' | 'two-majors';
  /**
   * For `crosses-major`: the version the raise would need; for `needs-newer-engine` too; for
   * `manifest-lower`: the lower version the manifest lists; for `two-majors`: the version of
   * another major that the project holds (or another package needs).
   */
  version?: string;
  /** For `needs-newer-engine`: what that version asks of the engine. */
  engineRequirement?: string;
  /**
   * For `breaks-dependent`: the package that needs the old major; for `two-majors`: the package
   * that needs the other major; as `name@version`.
   */
  dependent?: string;
  /** The one-line error message, in the form SPEC.md gives. */
  message: string;
}

export interface Raise {
  name: string;
  from: string;
  to: string;
  /** `name@version` of the package that needs it. */
  requiredBy: string;
}

export interface RaiseResult {
  raises: Raise[];
  conflicts: Conflict[];
  missing: Set<string>;
}

/**
 * Raises the dependencies of `changed` packages inside `final` (name → version, updated in
 * place) until every manifest entry meets what the new versions ask for.
 */
export function raiseDependencies(
  context: PlanContext,
  original: Readonly<Record<string, string>>,
  final: Record<string, string>,
  changed: Iterable<string>,
  latest: boolean,
): RaiseResult {
  const raises = new Map<string, Raise>();
  const conflicts: Conflict[] = [];
  const missing = new Set<string>();
  const queue = [...changed];
  while (queue.length > 0) {
    const name = queue.shift()!;
    const version = final[name]!;
    const dependent = `${name}@${version}`;
    for (const [dependency, wanted] of dependenciesOf(recordAtLeast(context, name, version))) {
      const current = final[dependency];
      if (current === undefined || context.isBuiltIn(dependency)) continue;
      // A file path or git URL in the manifest is the user's own override: leave it be.
      if (!semver.valid(current) || !semver.valid(wanted) || semver.gte(current, wanted)) continue;
      if (context.documents.get(dependency) === undefined) {
        missing.add(dependency);
        continue;
      }
      const choice = pickRaise(context, dependency, current, wanted, latest);
      if (!choice.ok) {
        conflicts.push({
          package: dependent,
          requires: { name: dependency, version: wanted },
          reason: choice.reason,
          ...(choice.reason !== 'unavailable' ? { version: choice.version } : {}),
          ...(choice.reason === 'needs-newer-engine' ? { engineRequirement: choice.requires } : {}),
          message: `version conflict: ${name} requires ${dependency}@${wanted}`,
        });
        continue;
      }
      final[dependency] = choice.version;
      raises.set(dependency, { name: dependency, from: original[dependency]!, to: choice.version, requiredBy: dependent });
      queue.push(dependency);
    }
  }
  if (missing.size === 0) conflicts.push(...brokenDependents(context, original, final));
  return { raises: [...raises.values()], conflicts, missing };
}

/**
 * A changed version that leaves the major another manifest package asks for: that package was
 * built against the old major and may break.
 */
function brokenDependents(
  context: PlanContext,
  original: Readonly<Record<string, string>>,
  final: Readonly<Record<string, string>>,
): Conflict[] {
  const conflicts: Conflict[] = [];
  for (const [name, version] of Object.entries(final)) {
    for (const [dependency, wanted] of dependenciesOf(recordAtLeast(context, name, version))) {
      const now = final[dependency];
      if (now === undefined || now === original[dependency] || !semver.valid(now) || !semver.valid(wanted)) continue;
      if (semver.lt(now, wanted) || semver.satisfies(now, `^${wanted}`)) continue;
      conflicts.push({
        package: `${dependency}@${now}`,
        requires: { name: dependency, version: wanted },
        reason: 'breaks-dependent',
        dependent: `${name}@${version}`,
        message: 'version conflict: cannot update package',
      });
    }
  }
  return conflicts;
}
