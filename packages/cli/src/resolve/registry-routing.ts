/**
 * Which registry serves which package, as the Unity Package Manager decides it: the most
 * specific scope of all `scopedRegistries` entries that matches the name (a scope matches itself
 * and the names below it), else the manifest's own `registry`, else the engine maker's registry.
 * Pure: it reads only the manifest model it is given.
 */
import type { ProjectManifest, ScopedRegistry } from '../engines/engine.js';
import { normalizeRegistryUrl } from '../engines/registry-url.js';
import { ClientError } from '../errors/client-errors.js';
import { scopeMatches } from './registry-scopes.js';

export interface Route {
  /** The registry's URL, normalized (no trailing slash). */
  url: string;
  /** The entry whose scope matched; absent when the name fell through to a default. */
  entry?: ScopedRegistry;
}

export interface RoutingOptions {
  /** Whether the engine's manifests have scoped registries; without them every name goes to `fallback`. */
  usesScopedRegistries: boolean;
  /** The engine maker's registry (never asked), when there is one. */
  ownRegistry?: string;
  /** Where names nothing else claims go: the registry in effect. */
  fallback: string;
}

export class RegistryRouting {
  readonly #entries: readonly ScopedRegistry[];
  readonly #default: string;
  readonly #own: string | undefined;
  readonly #scoped: boolean;

  constructor(manifest: ProjectManifest, options: RoutingOptions) {
    this.#scoped = options.usesScopedRegistries;
    this.#entries = options.usesScopedRegistries ? manifest.scopedRegistries : [];
    this.#own = options.ownRegistry ? normalizeRegistryUrl(options.ownRegistry) : undefined;
    const fallback = options.usesScopedRegistries ? (manifest.registry ?? options.ownRegistry) : undefined;
    this.#default = normalizeRegistryUrl(fallback ?? options.fallback);
    assertDistinctScopes(this.#entries);
  }

  /** The registry that serves `name`. */
  route(name: string): Route {
    const entry = this.coveringEntry(name);
    return entry ? { url: normalizeRegistryUrl(entry.url), entry } : { url: this.#default };
  }

  /** The entry whose most specific scope matches `name`; undefined when no scope does. */
  coveringEntry(name: string): ScopedRegistry | undefined {
    let best: { entry: ScopedRegistry; length: number } | undefined;
    for (const entry of this.#entries) {
      for (const scope of entry.scopes) {
        if (scopeMatches(scope, name) && (!best || scope.length > best.length)) best = { entry, length: scope.length };
      }
    }
    return best?.entry;
  }

  /** The registry of names no scope claims: the manifest's `registry`, the engine's own, or the fallback. */
  get defaultRegistry(): string {
    return this.#default;
  }

  /** True for the engine maker's registry, which pkg never asks. */
  isUnqueried(url: string): boolean {
    return this.#own !== undefined && normalizeRegistryUrl(url) === this.#own;
  }

  /** True when `url` is the manifest's default for unscoped names (no entry is needed for it). */
  isDefault(url: string): boolean {
    return this.#scoped && normalizeRegistryUrl(url) === this.#default;
  }
}

/**
 * Unity leaves a scope listed by two entries undefined (whichever it reads last wins), so the
 * project would resolve differently from what pkg plans: refuse, naming both entries.
 */
function assertDistinctScopes(entries: readonly ScopedRegistry[]): void {
  const owner = new Map<string, ScopedRegistry>();
  for (const entry of entries) {
    for (const scope of new Set(entry.scopes)) {
      const first = owner.get(scope);
      if (first && first !== entry) {
        throw new ClientError('DUPLICATE_SCOPE', {
          scope,
          first: first.name,
          firstUrl: first.url,
          second: entry.name,
          secondUrl: entry.url,
        });
      }
      owner.set(scope, entry);
    }
  }
}
