/**
 * The target set of an engine that reads one folder per package (Godot, Unreal): a package has
 * one version in the project. The manifest's versions for its own dependencies and, for what
 * those need, the version the lock already has when it still fits, else the lowest usable one in
 * the caret range of the highest version asked for. Pure; a set that cannot be met comes back
 * with its conflicts, as data, so a dry run can show them and `add` refuses what `install` would.
 */
import semver from 'semver';
import type { VersionRecord } from '@pkg/protocol';
import { ClientError } from '../errors/client-errors.js';
import { isUsable, pickRaise } from './pick-version.js';
import { dependenciesOf, recordOf, type NeedsDocuments, type PlanContext } from './plan-context.js';
import type { Conflict } from './raise-dependencies.js';

export interface InstallSet {
  kind: 'plan';
  /** Every package to be in the project, name → the record of its version. */
  records: Map<string, VersionRecord>;
  /** Why the set cannot be installed; empty when it can. */
  conflicts: Conflict[];
  /** Package → the packages (`name@version`) that need it; absent for a package nothing needs. */
  requiredBy: Map<string, string[]>;
}

/** Whether `version` meets a dependency on `wanted`: at least it, within its major (caret). */
function meets(version: string, wanted: string): boolean {
  return semver.gte(version, wanted) && semver.satisfies(version, `^${wanted}`);
}

export function resolveInstallSet(
  direct: Readonly<Record<string, string>>,
  context: PlanContext,
  locked: Readonly<Record<string, string>>,
  engineLabel: string,
): InstallSet | NeedsDocuments {
  const missing = Object.keys(direct).filter((n) => !context.documents.has(n));
  if (missing.length > 0) return { kind: 'needs-documents', names: missing };

  const chosen = new Map<string, string>();
  for (const [name, version] of Object.entries(direct)) {
    if (!semver.valid(version)) {
      throw new ClientError('PKG_JSON_NOT_A_VERSION', { name, version });
    }
    if (context.documents.get(name) === null) {
      throw new ClientError('PACKAGE_NOT_IN_REGISTRY', { name });
    }
    const record = recordOf(context, name, version);
    if (!record) {
      throw new ClientError('MANIFEST_VERSION_NOT_FOUND', { version, name, manifest: 'pkg.json' });
    }
    if (!context.isCompatible(record)) {
      throw new ClientError('INSTALL_NEEDS_NEWER_ENGINE', {
        name,
        version,
        requires: String(context.requirementOf(record)),
        engine: engineLabel,
      });
    }
    chosen.set(name, version);
  }

  // Who asks for what, so a raise can be checked against every dependent.
  const wants = new Map<string, { by: string; version: string }[]>();
  const conflicts: Conflict[] = [];
  const queue = [...chosen.keys()];
  const needed = new Set<string>();
  while (queue.length > 0) {
    const name = queue.shift()!;
    const record = recordOf(context, name, chosen.get(name)!)!;
    const dependent = `${name}@${record.version}`;
    for (const [dependency, wanted] of dependenciesOf(record)) {
      if (!semver.valid(wanted)) {
        throw new ClientError('INSTALL_CONFLICT', {
          conflict: `${dependent} asks for ${dependency}@${wanted}, which is not an exact version`,
          advice: 'Dependencies name the lowest version they work with (1.0.0, not ^1.0.0); tell the publisher of the package.',
        });
      }
      const list = wants.get(dependency) ?? [];
      if (!list.some((w) => w.by === dependent && w.version === wanted)) list.push({ by: dependent, version: wanted });
      wants.set(dependency, list);
      const document = context.documents.get(dependency);
      if (document === undefined) {
        needed.add(dependency);
        continue;
      }
      if (document === null) {
        throw new ClientError('DEPENDENCY_NOT_IN_REGISTRY', { name: dependency, dependent });
      }
      const current = chosen.get(dependency);
      if (current !== undefined && meets(current, wanted)) continue;
      const base = {
        package: dependent,
        requires: { name: dependency, version: wanted },
        message: `version conflict: ${name} requires ${dependency}@${wanted}`,
      };
      if (dependency in direct) {
        // The manifest's own version stands: lower than needed, or of another major.
        conflicts.push(
          semver.lt(current!, wanted)
            ? { ...base, reason: 'manifest-lower', version: current! }
            : { ...base, reason: 'two-majors', version: current! },
        );
        continue;
      }
      const highest = list.map((w) => w.version).sort(semver.rcompare)[0]!;
      const lockedVersion = locked[dependency];
      let next: string;
      if (
        lockedVersion !== undefined &&
        semver.valid(lockedVersion) &&
        list.every((w) => meets(lockedVersion, w.version)) &&
        isUsable(context, dependency, lockedVersion)
      ) {
        next = lockedVersion;
      } else {
        const choice = pickRaise(context, dependency, highest, highest, false);
        if (!choice.ok) {
          conflicts.push(
            choice.reason === 'needs-newer-engine'
              ? { ...base, reason: 'needs-newer-engine', version: choice.version, engineRequirement: choice.requires }
              : { ...base, reason: 'unavailable' },
          );
          continue;
        }
        next = choice.version;
      }
      const unmet = list.find((w) => !meets(next, w.version));
      if (unmet) {
        const unmetName = unmet.by.slice(0, unmet.by.lastIndexOf('@'));
        conflicts.push({
          package: unmet.by,
          requires: { name: dependency, version: unmet.version },
          reason: 'two-majors',
          version: next,
          dependent: list.find((w) => w.version === highest)!.by,
          message: `version conflict: ${unmetName} requires ${dependency}@${unmet.version}`,
        });
        continue;
      }
      chosen.set(dependency, next);
      queue.push(dependency);
    }
  }
  if (needed.size > 0) return { kind: 'needs-documents', names: [...needed] };
  return {
    kind: 'plan',
    records: new Map([...chosen].map(([name, version]) => [name, recordOf(context, name, version)!])),
    conflicts,
    requiredBy: new Map([...wants].map(([name, list]) => [name, list.map((w) => w.by)])),
  };
}
