/**
 * Resolving a project: the engine's rules for the resolver, taken from the open project and its
 * registries, and the documents the resolver asks for fetched from the registry of each package.
 */
import type { PackageDocument } from '@pkg/protocol';
import { readLock } from '../install/lock-file.js';
import { resolve, type EngineRules, type Intent, type Resolution } from '../resolve/resolver.js';
import type { Conflict } from '../resolve/raise-dependencies.js';
import { installsFiles, lockedVersions } from './installed-files.js';
import type { OpenProject } from './open-project.js';
import type { ProjectRegistries } from './project-registries.js';
import { planWithDocuments, type DocumentMap } from './registry-documents.js';
import { nameNewEntries } from './registry-names.js';

export interface ProjectResolution {
  resolution: Resolution;
  /** Every document fetched on the way, by name. */
  documents: DocumentMap;
  /**
   * When the resolution has a conflict that `--latest` might lift and the run did not have it:
   * the conflicts a resolution with `--latest` still meets (empty: the flag works).
   */
  latestRetry?: readonly Conflict[];
}

export async function engineRules(open: OpenProject, registries: ProjectRegistries, intent: Intent): Promise<EngineRules> {
  if (installsFiles(open)) {
    const { lock } = await readLock(open.project, open.fs);
    return { engineLabel: open.engineLabel, closure: 'one-folder', locked: lockedVersions(lock) };
  }
  // Unity's uninstall needs the closure only to shrink scoped-registry entries: with none to
  // shrink it asks no registry (the one a package came from may be gone, often why it goes).
  if (intent.kind === 'uninstall' && (registries.scopes === undefined || open.manifest.manifest.scopedRegistries.length === 0)) {
    return { engineLabel: open.engineLabel, closure: 'direct' };
  }
  return {
    engineLabel: open.engineLabel,
    closure: 'manifest-wins',
    ...(registries.scopes ? { scopes: registries.scopes } : {}),
  };
}

export interface ResolveOptions {
  /** Documents fetched already (they are not fetched again). */
  documents?: DocumentMap;
  /** Versions known advisories affect: an update prefers others (PlanContext.isAffected). */
  isAffected?: (name: string, version: string) => boolean;
  /** The engine's rules, when not the project's own (`engineRules`). */
  rules?: EngineRules;
}

export async function resolveProject(
  open: OpenProject,
  registries: ProjectRegistries,
  intent: Intent,
  options: ResolveOptions = {},
): Promise<ProjectResolution> {
  const rules = options.rules ?? (await engineRules(open, registries, intent));
  const dependencies = open.manifest.manifest.dependencies;
  const documents: DocumentMap = options.documents ?? new Map<string, PackageDocument | null>();
  const { isAffected } = options;
  const contextOf = (docs: DocumentMap) => ({
    ...registries.context(docs),
    ...(isAffected ? { isAffected } : {}),
    // What stays after an uninstall was installed for this editor already: it is not judged again.
    ...(intent.kind === 'uninstall' ? { isCompatible: () => true } : {}),
  });
  const run = (asked: Intent) =>
    planWithDocuments(registries.set, documents, (docs) => resolve(dependencies, asked, contextOf(docs), rules));
  const resolution = await named(await run(intent), open, registries);
  const liftable = resolution.conflicts.some((c) => c.reason === 'crosses-major');
  if (!liftable || intent.kind === 'install' || intent.kind === 'uninstall' || intent.latest) return { resolution, documents };
  // A hint may suggest --latest only when it works: try it.
  const withLatest = await run({ ...intent, latest: true });
  return { resolution, documents, latestRetry: withLatest.conflicts };
}

/** The resolution with the scoped-registry entries it creates named after their registries. */
async function named(resolution: Resolution, open: OpenProject, registries: ProjectRegistries): Promise<Resolution> {
  if (resolution.registryEntries.length === 0) return resolution;
  const registryEntries = await nameNewEntries(resolution.registryEntries, open.manifest.manifest.scopedRegistries, registries);
  return {
    ...resolution,
    registryEntries,
    ...(resolution.add ? { add: { ...resolution.add, registryEntries } } : {}),
    ...(resolution.update ? { update: { ...resolution.update, registryEntries } } : {}),
    ...(resolution.uninstall ? { uninstall: { ...resolution.uninstall, registryEntries } } : {}),
  };
}
