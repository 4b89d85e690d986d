/**
 * `pkg uninstall <name>...`: the dependencies to remove, the first step of the resolver
 * (`resolver.ts`), which then resolves what stays and which scopes of the scoped-registry entries
 * nothing left needs. Pure.
 */
import type { ScopedRegistry } from '../engines/engine.js';
import { ClientError } from '../errors/client-errors.js';

export interface UninstallPlan {
  kind: 'plan';
  removed: { package: string; version: string }[];
  dependencies: Record<string, string>;
  /**
   * Entries that lose scopes (an empty list: the entry goes); empty when none changes. Set by
   * the resolver, from the closure of what stays (empty from `planUninstall`).
   */
  registryEntries: ScopedRegistry[];
}

export function planUninstall(dependencies: Readonly<Record<string, string>>, names: readonly string[]): UninstallPlan {
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
  return { kind: 'plan', removed, dependencies: remaining, registryEntries: [] };
}
