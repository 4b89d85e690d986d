/**
 * The scoped-registry entry of the registry in use. Unity fetches a package from the registry
 * whose scopes match its name (a scope matches itself and names below it: `com.vendor` matches
 * `com.vendor.tool`), so every package we serve to a project, and every dependency of it that we
 * serve, has to be in our entry's scopes. We add exact names, sorted, and never touch other
 * registries' entries.
 */
import type { ScopedRegistry } from '../engines/engine.js';
import { normalizeRegistryUrl, sameRegistryUrl } from '../engines/registry-url.js';

export function scopeMatches(scope: string, name: string): boolean {
  return name === scope || name.startsWith(`${scope}.`);
}

export function findRegistryEntry(entries: readonly ScopedRegistry[], url: string): ScopedRegistry | undefined {
  return entries.find((e) => sameRegistryUrl(e.url, url));
}

/**
 * The name a new entry gets until the registry says its own (`GET /-/pkg/registry`): its host,
 * with the port, so two registries on one host read differently in Unity's settings.
 */
export function defaultRegistryName(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * Our entry completed so its scopes cover every name in `needed`; undefined when it already does.
 * The entry is created when missing.
 */
export function completeRegistryEntry(
  entries: readonly ScopedRegistry[],
  registryUrl: string,
  needed: Iterable<string>,
): ScopedRegistry | undefined {
  const entry = findRegistryEntry(entries, registryUrl);
  const scopes = entry?.scopes ?? [];
  const uncovered = [...new Set(needed)].filter((name) => !scopes.some((s) => scopeMatches(s, name)));
  if (uncovered.length === 0) return undefined;
  return {
    name: entry?.name ?? defaultRegistryName(registryUrl),
    url: entry?.url ?? normalizeRegistryUrl(registryUrl),
    scopes: [...new Set([...scopes, ...uncovered])].sort(),
  };
}

/**
 * Our entry without the scopes that only removed packages needed: a scope goes when it matches
 * something in `released` and nothing in `stillNeeded`. Scopes that match neither (added by hand
 * for packages to come) stay. Undefined when nothing changes; an empty scope list means the
 * entry goes.
 */
export function shrinkRegistryEntry(
  entries: readonly ScopedRegistry[],
  registryUrl: string,
  released: ReadonlySet<string>,
  stillNeeded: ReadonlySet<string>,
): ScopedRegistry | undefined {
  const entry = findRegistryEntry(entries, registryUrl);
  if (!entry) return undefined;
  const matchesAny = (scope: string, names: ReadonlySet<string>) => [...names].some((n) => scopeMatches(scope, n));
  const scopes = entry.scopes.filter((s) => !matchesAny(s, released) || matchesAny(s, stillNeeded));
  if (scopes.length === entry.scopes.length) return undefined;
  return { ...entry, scopes };
}

/** Every entry without the scopes only `released` names needed, as `shrinkRegistryEntry` says. */
export function shrinkRegistryEntries(
  entries: readonly ScopedRegistry[],
  released: ReadonlySet<string>,
  stillNeeded: ReadonlySet<string>,
): ScopedRegistry[] {
  // Every entry: a removed package's dependencies may have come from other registries.
  return entries.flatMap((entry) => shrinkRegistryEntry(entries, entry.url, released, stillNeeded) ?? []);
}

/**
 * Where names have to be listed: `entryFor` gives the URL of the registry whose entry must list
 * a name, or null when none must (a registry that serves unscoped names, one pkg does not ask).
 */
export interface ScopeTargets {
  entries: readonly ScopedRegistry[];
  entryFor(name: string): string | null;
}

/** Every entry that has to grow so that each name of `needed` is listed where it comes from. */
export function completeRegistryEntries(targets: ScopeTargets, needed: Iterable<string>): ScopedRegistry[] {
  const byRegistry = new Map<string, string[]>();
  for (const name of new Set(needed)) {
    const url = targets.entryFor(name);
    if (url === null) continue;
    const key = normalizeRegistryUrl(url);
    byRegistry.set(key, [...(byRegistry.get(key) ?? []), name]);
  }
  const changed: ScopedRegistry[] = [];
  for (const [url, names] of byRegistry) {
    const entry = completeRegistryEntry(targets.entries, url, names);
    if (entry) changed.push(entry);
  }
  return changed;
}
