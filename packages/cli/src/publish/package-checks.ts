/**
 * The checks of a package before it is packed or published, for the engines it names and only
 * those: a version may name several (`unity`, `godot`, `unreal`); one naming none is a Unity
 * package, as the registry reads it (`supportedEngines`). Pure: it reads package.json, the
 * packed file list and, through `readText`, the few small files the checks look into.
 */
import { godotChecks } from './godot-checks.js';
import { unrealChecks } from './unreal-checks.js';
import { commonProblems, metaProblems, unityFieldProblems } from './validate.js';
import type { PackageChecks } from './check-result.js';

export type { PackageChecks };

export type PackageEngine = 'unity' | 'godot' | 'unreal';

/** The engines a package.json names, Unity when it names none. */
export function packageEngines(manifest: Record<string, unknown>): PackageEngine[] {
  const engines: PackageEngine[] = [];
  if (manifest.unity !== undefined || manifest.unityRelease !== undefined) engines.push('unity');
  if (manifest.godot !== undefined || manifest.godotMax !== undefined) engines.push('godot');
  if (manifest.unreal !== undefined || manifest.unrealMax !== undefined) engines.push('unreal');
  return engines.length > 0 ? engines : ['unity'];
}

/** The files the checks read: the Godot addon's plugin.cfg and Unreal's root .uplugin. */
export function isCheckedFile(file: string): boolean {
  return /^addons\/[^/]+\/plugin\.cfg$/.test(file) || (!file.includes('/') && file.endsWith('.uplugin'));
}

export function checkPackage(
  manifest: Record<string, unknown>,
  files: readonly string[],
  readText: (file: string) => string | undefined,
): PackageChecks & { engines: PackageEngine[] } {
  const engines = packageEngines(manifest);
  const problems = commonProblems(manifest);
  const warnings: string[] = [];
  for (const engine of engines) {
    const checks =
      engine === 'unity'
        ? { problems: [...unityFieldProblems(manifest), ...metaProblems(files)], warnings: [] }
        : engine === 'godot'
          ? godotChecks(manifest, files, readText)
          : unrealChecks(manifest, files, readText);
    problems.push(...checks.problems);
    warnings.push(...checks.warnings);
  }
  return { engines, problems, warnings };
}
