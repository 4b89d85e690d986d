/**
 * `pkg uninstall <name>...`: the dependencies to remove and the scopes of our registry entry that
 * nothing left in the manifest needs any more.
 */
import semver from 'semver';
import type { ScopedRegistry } from '../engines/engine.js';
import { ClientError } from '../errors/client-errors.js';
import { registryClosure, type NeedsDocuments, type PlanContext } from './plan-context.js';
import { shrinkRegistryEntry } from './registry-scopes.js';

export interface UninstallPlan {
  kind: 'plan';
  removed: { package: string; version: string }[];
  dependencies: Record<string, string>;
  /** Entries that lose scopes (an empty list: the entry goes); empty when none changes. */
  registryEntries: ScopedRegistry[];
}

export function planUninstall(
  dependencies: Readonly<Record<string, string>>,
  names: readonly string[],
  context: PlanContext,
  scopes?: { entries: readonly ScopedRegistry[] },
): UninstallPlan | NeedsDocuments {
  for (const name of names) {
    if (!(name in dependencies)) {
      throw new ClientError('PACKAGE_NOT_IN_PROJECT', { name });
    }
  }
  const removedNames = new Set(names);
  const removed = Object.entries(dependencies)
    .filter(([name]) => removedNames.has(name))
    .map(([name, version]) => ({ package: name, version }));
  const remaining = Object.fromEntries(Object.entries(dependencies).filter(([name]) => !removedNames.has(name)));
  const registryEntries: ScopedRegistry[] = [];
  if (scopes) {
    const roots = (deps: Record<string, string>) =>
      Object.entries(deps)
        .filter(([, version]) => semver.valid(version))
        .map(([name, version]) => ({ name, version }));
    const released = registryClosure(context, roots(Object.fromEntries(removed.map((r) => [r.package, r.version]))));
    const kept = registryClosure(context, roots(remaining));
    const missing = new Set([...released.missing, ...kept.missing]);
    if (missing.size > 0) return { kind: 'needs-documents', names: [...missing] };
    // A removed package the registry does not know still had its own name in our scopes.
    for (const r of removed) released.names.add(r.package);
    // What stays in the manifest keeps the scopes that match it, whichever registry serves it.
    for (const name of Object.keys(remaining)) kept.names.add(name);
    // Every entry: a removed package's dependencies may have come from other registries.
    for (const entry of scopes.entries) {
      const shrunk = shrinkRegistryEntry(scopes.entries, entry.url, released.names, kept.names);
      if (shrunk) registryEntries.push(shrunk);
    }
  }
  return { kind: 'plan', removed, dependencies: remaining, registryEntries };
}
