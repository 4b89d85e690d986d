/** The registries of one project run: routing, fetching, scope targets and `--registry` narrowing. */
import type { CommandContext } from '../context.js';
import type { VersionRecord } from '@pkg/protocol';
import { normalizeRegistryUrl, sameRegistryUrl } from '../engines/registry-url.js';
import type { RegistryUrl } from '../http/registry-url.js';
import type { PlanContext } from '../resolve/plan-context.js';
import type { ScopeTargets } from '../resolve/registry-scopes.js';
import { RegistryRouting } from '../resolve/registry-routing.js';
import { planContextFor, type OpenProject } from './open-project.js';
import type { DocumentMap } from './registry-documents.js';
import { RegistrySet } from './registry-set.js';
import type { RegistryClient } from '../http/registry-client.js';
import { ClientError } from '../errors/client-errors.js';

export interface ProjectRegistries {
  /** The registry in effect (`--registry`, PKG_REGISTRY, the config, the default). */
  inEffect: RegistryUrl;
  routing: RegistryRouting;
  set: RegistrySet;
  /** Where new names go in scopedRegistries; undefined for engines without them. */
  scopes: ScopeTargets | undefined;
  /** True when `name` belongs to this run: every package, or with `--registry` that registry's only. */
  inRun(name: string): boolean;
  context(documents: DocumentMap): PlanContext;
  /** The client of the registry `record` came from. */
  clientFor(record: VersionRecord): Promise<RegistryClient>;
  /**
   * Stops when a package named on the command line is not one of `--registry`'s: naming both is
   * a contradiction, and doing nothing (or something else) silently would hide it.
   */
  refuseOutsideRun(names: readonly string[]): void;
}

export interface ProjectRegistriesOptions {
  /** `--registry` as given: it narrows list, update, install and uninstall to that registry. */
  flag?: string;
  /** Names `add` was asked for: when no scope covers them they come from the registry in effect. */
  explicit?: ReadonlySet<string>;
  /** A registry that cannot be asked costs only its own packages (`list`). */
  tolerant?: boolean;
}

export async function projectRegistries(
  ctx: CommandContext,
  open: OpenProject,
  options: ProjectRegistriesOptions,
): Promise<ProjectRegistries> {
  const inEffect = await ctx.registryUrl(options.flag);
  const { engine } = open;
  const routing = new RegistryRouting(open.manifest.manifest, {
    usesScopedRegistries: engine.usesScopedRegistries,
    ...(engine.ownRegistry ? { ownRegistry: engine.ownRegistry } : {}),
    fallback: inEffect,
  });
  const set = new RegistrySet(ctx, routing, {
    ...(options.explicit ? { explicit: { names: options.explicit, registry: inEffect } } : {}),
    tolerant: options.tolerant ?? false,
    manifest: engine.manifestRelativePath,
  });
  const scopes: ScopeTargets | undefined = engine.usesScopedRegistries
    ? {
        entries: open.manifest.manifest.scopedRegistries,
        entryFor(name) {
          const url = set.registryOf(name);
          if (routing.isUnqueried(url)) return null;
          // The manifest's own `registry` serves every unscoped name: no entry needed for it.
          if (!routing.coveringEntry(name) && routing.isDefault(url)) return null;
          return url;
        },
      }
    : undefined;
  const only = options.flag !== undefined && !options.explicit ? normalizeRegistryUrl(inEffect) : undefined;
  const inRun = (name: string) => only === undefined || sameRegistryUrl(set.registryOf(name), only);
  return {
    inEffect,
    routing,
    set,
    scopes,
    inRun,
    context: (documents) => planContextFor(engine, open.version, documents, set),
    clientFor: (record) => set.client(set.registryOf(record.name)),
    refuseOutsideRun(names) {
      const outside = names.find((name) => !inRun(name));
      if (outside === undefined) return;
      const from = engine.isBuiltIn(outside) ? 'is built into the editor' : `comes from ${set.registryOf(outside)}`;
      throw new ClientError('NOT_FROM_REGISTRY', { name: outside, registry: inEffect, source: from });
    },
  };
}
