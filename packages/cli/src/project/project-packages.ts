/**
 * The packages of a project as `list`, `outdated` and `why` show them: the manifest's, and with
 * `all` the ones only others need (with who needs them), each with its registry's document.
 */
import semver from 'semver';
import type { CommandContext } from '../context.js';
import { readLock } from '../install/lock-file.js';
import type { PackageStatus } from '../output/format.js';
import type { PlanContext } from '../resolve/plan-context.js';
import { headerOf, registryDependencies, status, type ProjectOptions } from './project-actions.js';
import { installsFiles } from './installed-files.js';
import { openProject, type OpenProject } from './open-project.js';
import { projectRegistries, type ProjectRegistries } from './project-registries.js';
import type { DocumentMap } from './registry-documents.js';
import { resolveProject } from './resolve-project.js';
import type { ProjectHeader } from '../reports/project-reports.js';

export interface ProjectPackage {
  name: string;
  /** The manifest's version; null for a package only others need. */
  requested: string | null;
  /** The version the project holds (Unity's packages-lock.json, pkg-lock.json), else null. */
  resolved: string | null;
  /** The packages (`name@version`) that need it; empty for one nothing needs. */
  requiredBy: string[];
  /** Why pkg does not ask a registry about it; null when it does. */
  status: PackageStatus | null;
}

export interface ProjectView {
  open: OpenProject;
  registries: ProjectRegistries;
  header: ProjectHeader;
  packages: ProjectPackage[];
  context: PlanContext;
}

/**
 * `tolerant`: a registry that cannot be asked costs only its own packages (they come without a
 * document; `registries.set.unreachable` says which registries and why).
 */
export async function projectView(
  ctx: CommandContext,
  options: ProjectOptions,
  all: boolean,
  tolerant = false,
): Promise<ProjectView> {
  const open = await openProject(ctx, options.engine, options.engineVersion);
  const registries = await projectRegistries(ctx, open, {
    ...(options.registry !== undefined ? { flag: options.registry } : {}),
    ...(tolerant ? { tolerant: true } : {}),
  });
  const dependencies = open.manifest.manifest.dependencies;
  const resolved = await open.engine.readResolvedVersions(open.project, open.fs);
  const documents: DocumentMap = new Map();
  const others = all ? await dependenciesOnly(open, registries, documents) : new Map<string, TransitivePackage>();
  const direct = registryDependencies(open)
    .map(([name]) => name)
    .filter((name) => registries.inRun(name));
  const wanted = [...direct, ...others.keys()].filter((n) => !documents.has(n));
  if (wanted.length > 0) await registries.set.fetch(wanted, documents);
  const requiredBy = (name: string) => others.get(name)?.requiredBy ?? [];
  const packages: ProjectPackage[] = [
    ...Object.entries(dependencies)
      .filter(([name]) => registries.inRun(name))
      .map(([name, version]) => ({
        name,
        requested: version,
        resolved: resolved[name] ?? null,
        requiredBy: requiredBy(name),
        status: status(open, registries, name, version, documents),
      })),
    ...[...others.values()]
      .filter((p) => !(p.name in dependencies))
      .map((p) => ({
        name: p.name,
        requested: null,
        resolved: resolved[p.name] ?? p.version,
        requiredBy: p.requiredBy,
        status: status(open, registries, p.name, p.version, documents),
      })),
  ];
  return { open, registries, header: headerOf(open, registries), packages, context: registries.context(documents) };
}

interface TransitivePackage {
  name: string;
  version: string;
  requiredBy: string[];
}

/**
 * Every package of the project with who needs it. Godot, Unreal: the lock, which is what the
 * project holds. Unity: the closure as the editor resolves it, from the one resolver.
 */
async function dependenciesOnly(
  open: OpenProject,
  registries: ProjectRegistries,
  documents: DocumentMap,
): Promise<Map<string, TransitivePackage>> {
  const found = new Map<string, TransitivePackage>();
  if (installsFiles(open)) {
    const { lock } = await readLock(open.project, open.fs);
    for (const [name, locked] of Object.entries(lock.packages)) {
      if (!registries.inRun(name)) continue;
      const requiredBy = Object.entries(lock.packages)
        .filter(([, other]) => other.dependencies?.[name] !== undefined)
        .map(([other, p]) => `${other}@${p.version}`)
        .sort();
      found.set(name, { name, version: locked.version, requiredBy });
    }
    return found;
  }
  const only = new Set(Object.keys(open.manifest.manifest.dependencies).filter((n) => registries.inRun(n)));
  const { resolution, documents: fetched } = await resolveProject(open, registries, { kind: 'install', only });
  for (const [name, document] of fetched) documents.set(name, document);
  for (const target of resolution.target.values()) {
    found.set(target.name, { name: target.name, version: target.version, requiredBy: [...target.requiredBy].sort() });
  }
  return found;
}

/** The version a package is at: what the project holds, else what the manifest asks for. */
export function currentVersion(p: ProjectPackage): string | null {
  const version = p.resolved ?? p.requested;
  return version !== null && semver.valid(version) ? version : null;
}
