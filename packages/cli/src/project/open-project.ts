import type { CommandContext } from '../context.js';
import { ClientError } from '../errors/client-errors.js';
import { selectEngine, type Engine, type EngineVersion, type ManifestFile } from '../engines/index.js';
import { checkoutRunner } from '../files/checkout.js';
import { projectFs, type ProjectFs } from '../files/project-fs.js';
import type { VersionRecord } from '@pkg/protocol';
import type { PlanContext } from '../resolve/plan-context.js';
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

/**
 * Finds the project around the working directory and reads it; warns when compatibility checks
 * are off. The engine version is `--engine-version` when given, else the project's own; the
 * `engineVersion` setting stands in for a project that does not say it (an Unreal project of a
 * source-built engine).
 */
export async function openProject(ctx: CommandContext, forcedEngine?: string, engineVersion?: string): Promise<OpenProject> {
  const found = await selectEngine(ctx.deps.cwd, projectFs(ctx.deps.fs), forcedEngine);
  const { engine, project } = found;
  const checkout = String((await ctx.config()).get('checkoutCommand'));
  const fs = projectFs(ctx.deps.fs, checkoutRunner(checkout, project, ctx.deps, ctx.reporter));
  const given = async (text: string, from: string): Promise<EngineVersion> => {
    if (!engine.isVersionText(text)) {
      throw new ClientError('INVALID_ENGINE_VERSION', {
        version: text,
        engine: engine.displayName,
        source: from,
        form: engine.id === 'unity' ? 'Give an editor version such as 2022.3.10f1.' : 'Give <major>.<minor>, such as 4.2 or 5.3.',
      });
    }
    return { text };
  };
  const fromProject = async (): Promise<EngineVersion> => {
    const configured = String((await ctx.config()).get('engineVersion'));
    try {
      const read = await engine.readEngineVersion(project, fs);
      return read.text === null && configured !== '' ? given(configured, 'the engineVersion setting') : read;
    } catch (err) {
      if (err instanceof ClientError && err.code === 'ENGINE_VERSION_REQUIRED' && configured !== '') {
        return given(configured, 'the engineVersion setting');
      }
      throw err;
    }
  };
  const [version, manifest] = await Promise.all([
    engineVersion !== undefined ? given(engineVersion, '--engine-version') : fromProject(),
    engine.readManifest(project, fs),
  ]);
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
  registries?: { isUnqueried(name: string): boolean },
): PlanContext {
  return {
    documents,
    ...(registries ? { isUnqueried: (name: string) => registries.isUnqueried(name) } : {}),
    isCompatible: (record: VersionRecord) => engine?.isCompatible(record, version) ?? true,
    isBuiltIn: (name) => engine?.isBuiltIn(name) ?? false,
    requirementOf: (record) => engine?.requirementOf(record) ?? null,
  };
}
