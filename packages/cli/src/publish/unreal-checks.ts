/**
 * What an Unreal Engine 5 plugin package must be before it is published: one `<Name>.uplugin` at
 * its root (the installer's `Plugins/<Name>/`), a descriptor Unreal can load whose name and
 * version agree with the package, and binaries that fit the engine versions it claims. Pure.
 */
import { minorEngineRange, minorEngineFieldProblem, parseProjectMinorVersion, compareMinorVersions } from '@pkg/protocol';
import type { PackageChecks } from './check-result.js';

/** Unreal's own rule for module and plugin names (the installer's rule). */
const PLUGIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names compared as people write them across conventions: `dialogue-kit` ≈ `DialogueKit` ≈ `dialogue_kit`. */
const loose = (name: string) => name.toLowerCase().replace(/[-_]/g, '');

export function unrealChecks(
  manifest: Record<string, unknown>,
  files: readonly string[],
  readText: (file: string) => string | undefined,
): PackageChecks {
  const problems: string[] = [];
  const warnings: string[] = [];
  const field = minorEngineFieldProblem(manifest, 'unreal');
  if (field) problems.push(field);
  const uplugins = files.filter((f) => !f.includes('/') && f.endsWith('.uplugin'));
  if (uplugins.length !== 1) {
    problems.push(
      uplugins.length === 0
        ? 'there is no <Name>.uplugin beside package.json: an Unreal package is a plugin folder'
        : `there are ${uplugins.length} .uplugin files beside package.json (${uplugins.join(', ')}): an Unreal package is one plugin`,
    );
    return { problems, warnings };
  }
  const file = uplugins[0]!;
  const name = file.slice(0, -'.uplugin'.length);
  if (!PLUGIN_NAME.test(name))
    problems.push(`${file}: "${name}" is not a plugin name Unreal accepts (letters, digits and _, not starting with a digit)`);
  const packageName = typeof manifest.name === 'string' ? manifest.name : '';
  const lastSegment = packageName.split('.').pop() ?? '';
  if (packageName !== '' && loose(lastSegment) !== loose(name)) {
    problems.push(
      `${file} names the plugin ${name}, but the package is ${packageName}: its last segment must be the plugin's name (such as ${packageName.split('.').slice(0, -1).join('.')}.${name.toLowerCase()})`,
    );
  }
  let descriptor: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse((readText(file) ?? '').replace(/^\uFEFF/, ''));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('it is not a JSON object');
    descriptor = parsed as Record<string, unknown>;
  } catch (err) {
    problems.push(`${file} is not a plugin descriptor Unreal can read: ${(err as Error).message}`);
    return { problems, warnings };
  }
  if (descriptor.FileVersion !== 3) problems.push(`${file}: "FileVersion" must be 3, as Unreal Engine 5 writes it`);
  if (descriptor.VersionName !== manifest.version) {
    problems.push(
      `${file}: "VersionName" ${JSON.stringify(descriptor.VersionName ?? null)} is not the package's version ${String(manifest.version)}`,
    );
  }
  const modules = descriptor.Modules;
  if (modules !== undefined) {
    if (!Array.isArray(modules)) problems.push(`${file}: "Modules" is not a list`);
    else {
      for (const [i, module] of modules.entries()) {
        const moduleName = (module as Record<string, unknown> | null)?.Name;
        if (typeof moduleName !== 'string' || !PLUGIN_NAME.test(moduleName)) {
          problems.push(`${file}: module ${i + 1} has no valid "Name"`);
        }
      }
    }
  }
  warnings.push(...binaryWarnings(manifest, files, descriptor, file));
  return { problems, warnings };
}

/**
 * Prebuilt binaries load only in the engine minor they were built for: say so when the package
 * claims others, or when the descriptor's `EngineVersion` is outside what the package claims.
 */
function binaryWarnings(
  manifest: Record<string, unknown>,
  files: readonly string[],
  descriptor: Record<string, unknown>,
  file: string,
): string[] {
  if (!files.some((f) => f.startsWith('Binaries/'))) return [];
  const range = minorEngineRange(manifest, 'unreal');
  if (!range) return [];
  const claimed = `${range.min.major}.${range.min.minor}${range.max ? `–${range.max.major}.${range.max.minor}` : ' and newer'}`;
  const built =
    typeof descriptor.EngineVersion === 'string'
      ? parseProjectMinorVersion(descriptor.EngineVersion.replace(/^(\d+\.\d+)\.\d+$/, '$1'))
      : null;
  if (built === null) {
    return [
      `Binaries/ holds prebuilt binaries but ${file} has no "EngineVersion": they load only in the Unreal Engine version they were built for, and the package claims ${claimed}`,
    ];
  }
  const builtText = `${built.major}.${built.minor}`;
  const outside =
    compareMinorVersions(built, range.min) < 0 || (range.max !== undefined && compareMinorVersions(built, range.max) > 0);
  if (outside)
    return [
      `Binaries/ were built for Unreal Engine ${builtText} ("EngineVersion" of ${file}), which the package's "unreal" fields (${claimed}) do not include`,
    ];
  if (!range.max || compareMinorVersions(range.max, range.min) !== 0) {
    return [
      `Binaries/ were built for Unreal Engine ${builtText} and load in that version only, but the package claims ${claimed}: set "unreal" and "unrealMax" to ${builtText}`,
    ];
  }
  return [];
}
