/**
 * Which version of every package a Godot or Unreal project gets. The engine reads one folder per
 * package, so a package has one version in the project: the manifest's versions for its own
 * dependencies and, for what those need, the version the lock already has when it still fits,
 * else the lowest usable one in the caret range of the highest version asked for. Pure, like
 * the planners in `updates/`.
 */
import semver from 'semver';
import type { VersionRecord } from '@pkg/protocol';
import { ClientError } from '../output/errors.js';
import { isUsable, pickRaise } from '../updates/pick-version.js';
import { dependenciesOf, recordOf, type NeedsDocuments, type PlanContext } from '../updates/plan-context.js';

export interface InstallSet {
  kind: 'plan';
  /** Every package to be in the project, name → the record of its version. */
  records: Map<string, VersionRecord>;
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
  const queue = [...chosen.keys()];
  const needed = new Set<string>();
  while (queue.length > 0) {
    const name = queue.shift()!;
    const record = recordOf(context, name, chosen.get(name)!);
    for (const [dependency, wanted] of dependenciesOf(record)) {
      if (!semver.valid(wanted)) {
        throw conflict(
          `${name}@${record!.version} asks for ${dependency}@${wanted}, which is not an exact version`,
          'Dependencies name the lowest version they work with (1.0.0, not ^1.0.0); tell the publisher of the package.',
        );
      }
      const list = wants.get(dependency) ?? [];
      if (!list.some((w) => w.by === name && w.version === wanted))
        list.push({ by: `${name}@${record!.version}`, version: wanted });
      wants.set(dependency, list);
      const document = context.documents.get(dependency);
      if (document === undefined) {
        needed.add(dependency);
        continue;
      }
      if (document === null) {
        throw new ClientError('DEPENDENCY_NOT_IN_REGISTRY', { name: dependency, dependent: `${name}@${record!.version}` });
      }
      const current = chosen.get(dependency);
      if (current !== undefined && meets(current, wanted)) continue;
      if (dependency in direct) {
        throw conflict(
          `version conflict: ${name} requires ${dependency}@${wanted}`,
          `pkg.json has ${dependency}@${current}: update it first (pkg update ${dependency}${semver.major(wanted) !== semver.major(current!) ? ' --latest' : ''}).`,
        );
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
          throw conflict(
            `version conflict: ${name} requires ${dependency}@${wanted}`,
            choice.reason === 'needs-newer-engine'
              ? `${dependency}@${choice.version} needs ${choice.requires}; this project uses ${engineLabel}.`
              : `No usable version of ${dependency} at or above ${highest} within its major is published.`,
          );
        }
        next = choice.version;
      }
      const unmet = list.find((w) => !meets(next, w.version));
      if (unmet) {
        throw conflict(
          `version conflict: ${unmet.by} requires ${dependency}@${unmet.version}`,
          `Another package needs ${dependency}@${highest}, of another major; a project holds one version of a package.`,
        );
      }
      chosen.set(dependency, next);
      queue.push(dependency);
    }
  }
  if (needed.size > 0) return { kind: 'needs-documents', names: [...needed] };
  return {
    kind: 'plan',
    records: new Map([...chosen].map(([name, version]) => [name, recordOf(context, name, version)!])),
  };
}

function conflict(message: string, hint: string): ClientError {
  return new ClientError('INSTALL_CONFLICT', { conflict: message, advice: hint });
}
