import type { CommandContext } from '../context.js';
import { selectEngine, type Engine, type EngineVersion, type ManifestFile } from '../engines/index.js';
import { projectFs, type ProjectFs } from '../files/project-fs.js';
import type { VersionRecord } from '@pkg/protocol';
import type { PlanContext } from '../updates/plan-context.js';
import type { PackageDocument } from '@pkg/protocol';

/** A project as the project commands see it: engine, root, engine version and manifest. */
export interface OpenProject {
  engine: Engine;
  project: string;
  version: EngineVersion;
  manifest: ManifestFile;
  fs: ProjectFs;
  /** `Unity 2022.3.10f1`, or `Unity (version unknown)`: how messages name the engine. */
  engineLabel: string;
}

/** Finds the project around the working directory and reads it; warns when compatibility checks are off. */
export async function openProject(ctx: CommandContext, forcedEngine?: string): Promise<OpenProject> {
  const fs = projectFs(ctx.deps.fs);
  const { engine, project } = await selectEngine(ctx.deps.cwd, fs, forcedEngine);
  const [version, manifest] = await Promise.all([engine.readEngineVersion(project, fs), engine.readManifest(project, fs)]);
  if (version.warning) ctx.reporter.warn(version.warning);
  return {
    engine,
    project,
    version,
    manifest,
    fs,
    engineLabel: `${engine.displayName} ${version.text ?? '(version unknown)'}`,
  };
}

/** The planners' view of the engine's rules for this project. */
export function planContextFor(
  engine: Engine | null,
  version: EngineVersion,
  documents: ReadonlyMap<string, PackageDocument | null>,
): PlanContext {
  return {
    documents,
    isCompatible: (record: VersionRecord) => engine?.isCompatible(record, version) ?? true,
    isBuiltIn: (name) => engine?.isBuiltIn(name) ?? false,
    requirementOf: (record) => engine?.requirementOf(record) ?? null,
  };
}
