/**
 * The one place an engine is chosen. Commands call `selectEngine` and never name an engine.
 */
import path from 'node:path';
import type { ProjectFs } from '../files/project-fs.js';
import type { Engine } from './engine.js';
import { ClientError } from '../errors/client-errors.js';
import { godotEngine } from './godot/godot-engine.js';
import { unityEngine } from './unity/unity-engine.js';
import { unrealEngine } from './unreal/unreal-engine.js';

export type { Engine, EngineVersion, ManifestChange, ManifestFile, ProjectManifest, ScopedRegistry } from './engine.js';

/** Every supported engine, in the order detection tries them. */
export const ENGINES: readonly Engine[] = [unityEngine, godotEngine, unrealEngine];

export interface SelectedEngine {
  engine: Engine;
  /** The project's root folder. */
  project: string;
}

export function engineById(id: string): Engine | undefined {
  return ENGINES.find((e) => e.id === id.toLowerCase());
}

/**
 * Finds the project that contains `start` (it or the nearest folder above it that an engine
 * recognises) and its engine. `forced` (from `--engine`) picks the engine by name; the project is
 * then the nearest folder that engine recognises, else the nearest holding its manifest, else `start`.
 */
export async function selectEngine(start: string, fs: ProjectFs, forced?: string): Promise<SelectedEngine> {
  const dirs = ancestors(path.resolve(start));
  if (forced !== undefined) {
    const engine = engineById(forced);
    if (!engine) {
      throw new ClientError('UNKNOWN_ENGINE', { engine: forced, engines: ENGINES.map((e) => e.id).join(', ') });
    }
    for (const dir of dirs) {
      if (await engine.detect(dir, fs)) return { engine, project: dir };
    }
    await refuseUnsupported([engine], dirs, fs);
    for (const dir of dirs) {
      if (await fs.isFile(path.join(dir, engine.manifestRelativePath))) return { engine, project: dir };
    }
    return { engine, project: dirs[0]! };
  }
  for (const dir of dirs) {
    for (const engine of ENGINES) {
      if (await engine.detect(dir, fs)) return { engine, project: dir };
    }
  }
  // Only when no supported project contains `start`: a Godot 3 project says why it is not one.
  await refuseUnsupported(ENGINES, dirs, fs);
  throw new ClientError('NO_ENGINE_DETECTED', { engines: ENGINES.map((e) => e.id).join(', ') });
}

/** Throws for the nearest project of an engine version `pkg` does not support, if any. */
async function refuseUnsupported(engines: readonly Engine[], dirs: readonly string[], fs: ProjectFs): Promise<void> {
  for (const dir of dirs) {
    for (const engine of engines) {
      const unsupported = await engine.unsupportedProject?.(dir, fs);
      if (unsupported) throw new ClientError('ENGINE_UNSUPPORTED', unsupported);
    }
  }
}

function ancestors(dir: string): string[] {
  const result = [dir];
  for (let parent = path.dirname(dir); parent !== result[result.length - 1]; parent = path.dirname(parent)) {
    result.push(parent);
  }
  return result;
}
