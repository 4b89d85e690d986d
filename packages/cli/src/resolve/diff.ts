/**
 * What a resolution changes in a project, as arborist's diff is for npm: the manifest edit (the
 * versions to write, the entries to remove, the scoped registries that grow) and, package by
 * package, what the project holds before and after. The appliers of each engine write exactly
 * this; reports and `--dry-run` show it. Pure.
 */
import type { ManifestChange } from '../engines/engine.js';
import type { Resolution } from './resolver.js';

export interface PackageChange {
  package: string;
  /** The version held before; null for a package the project gains. */
  from: string | null;
  /** The version held after; null for a package the project loses. */
  to: string | null;
  /** Listed in the manifest before or after (not only needed by another package). */
  direct: boolean;
}

export interface ProjectDiff {
  manifest: ManifestChange;
  /** Packages whose version changes, appears or goes, sorted by name. */
  packages: PackageChange[];
}

/**
 * What a change did to the packages the project holds only because others need them (Godot,
 * Unreal: in the lock, not in `pkg.json`): reports list them, since their folders appear and go.
 */
export interface DependencyChanges {
  installed: { package: string; version: string; previous?: string }[];
  removed: { package: string; version: string }[];
}

export interface ProjectState {
  /** The manifest's dependencies now. */
  dependencies: Readonly<Record<string, string>>;
  /** The versions the project holds now (a lock); empty when the engine keeps none `pkg` reads. */
  held: Readonly<Record<string, string>>;
}

export function diffResolution(before: ProjectState, resolution: Resolution): ProjectDiff {
  const after = resolution.dependencies;
  const set = Object.fromEntries(Object.entries(after).filter(([name, version]) => before.dependencies[name] !== version));
  const remove = Object.keys(before.dependencies).filter((name) => !(name in after));
  const manifest: ManifestChange = {
    ...(Object.keys(set).length > 0 ? { set } : {}),
    ...(remove.length > 0 ? { remove } : {}),
    ...(resolution.registryEntries.length > 0 ? { registries: resolution.registryEntries } : {}),
  };
  const packages: PackageChange[] = [];
  const direct = (name: string) => name in after || name in before.dependencies;
  for (const [name, target] of resolution.target) {
    const from = before.held[name] ?? null;
    if (from !== target.version) packages.push({ package: name, from, to: target.version, direct: direct(name) });
  }
  for (const [name, version] of Object.entries(before.held)) {
    if (!resolution.target.has(name)) packages.push({ package: name, from: version, to: null, direct: direct(name) });
  }
  packages.sort((a, b) => (a.package < b.package ? -1 : a.package > b.package ? 1 : 0));
  return { manifest, packages };
}

/** The diff's packages that only others need, as the reports of Godot and Unreal list them. */
export function dependencyChanges(diff: ProjectDiff): DependencyChanges {
  const others = diff.packages.filter((p) => !p.direct);
  return {
    installed: others
      .filter((p) => p.to !== null)
      .map((p) => ({ package: p.package, version: p.to!, ...(p.from !== null ? { previous: p.from } : {}) })),
    removed: others.filter((p) => p.to === null).map((p) => ({ package: p.package, version: p.from! })),
  };
}
