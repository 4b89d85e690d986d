/**
 * What a Godot 4 package must be before it is published: what `pkg` needs to install it into a
 * project (`engines/godot/godot-engine.ts`, `layout`), and a `plugin.cfg` Godot can load. Pure:
 * it reads the parsed package.json, the packed file list and the text of `plugin.cfg`.
 */
import { minorEngineFieldProblem } from '@pkg/protocol';
import type { PackageChecks } from './check-result.js';

/** Folder names Godot accepts under `res://addons/` (the installer's rule). */
const FOLDER = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** The `key="value"` lines of the `[plugin]` section of a `plugin.cfg`; null when there is no such section. */
export function pluginSection(text: string): Map<string, string> | null {
  let inPlugin = false;
  let found = false;
  const keys = new Map<string, string>();
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';')) continue;
    const section = /^\[([^\]]+)\]$/.exec(line);
    if (section) {
      inPlugin = section[1] === 'plugin';
      found ||= inPlugin;
      continue;
    }
    const pair = /^([A-Za-z_][A-Za-z0-9_/]*)\s*=\s*(.*)$/.exec(line);
    if (inPlugin && pair) {
      const value = pair[2]!;
      keys.set(pair[1]!, /^".*"$/.test(value) ? value.slice(1, -1) : value);
    }
  }
  return found ? keys : null;
}

/** The one folder of `addons/` the package holds, or the problem with its layout. */
function addonFolder(files: readonly string[]): { folder: string } | { problem: string } {
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    if (parts.length === 1) continue; // package.json, README.md, LICENSE: beside the addon, not installed
    if (parts[0] !== 'addons' || parts.length < 3) {
      return {
        problem: `file ${file} is outside addons/<folder>/: a Godot package holds one addon folder (only package.json, a readme and a licence may sit beside it)`,
      };
    }
    folders.add(parts[1]!);
  }
  if (folders.size !== 1) {
    return {
      problem:
        folders.size === 0
          ? 'there is no addons/<folder>/: a Godot package holds its addon as addons/<folder>/, as the project will'
          : `there are ${folders.size} folders in addons/ (${[...folders].sort().join(', ')}): a Godot package holds one`,
    };
  }
  const folder = [...folders][0]!;
  if (!FOLDER.test(folder)) return { problem: `addons/${folder} is not a folder name Godot and pkg can use` };
  return { folder };
}

export function godotChecks(
  manifest: Record<string, unknown>,
  files: readonly string[],
  readText: (file: string) => string | undefined,
): PackageChecks {
  const problems: string[] = [];
  const warnings: string[] = [];
  const field = minorEngineFieldProblem(manifest, 'godot');
  if (field) problems.push(field);
  const layout = addonFolder(files);
  if ('problem' in layout) return { problems: [...problems, layout.problem], warnings };
  const cfgPath = `addons/${layout.folder}/plugin.cfg`;
  const cfg = readText(cfgPath);
  if (cfg === undefined) {
    warnings.push(`addons/${layout.folder}/ has no plugin.cfg: it is installed as files and not enabled as an editor plugin`);
    return { problems, warnings };
  }
  const plugin = pluginSection(cfg);
  if (!plugin) return { problems: [...problems, `${cfgPath} has no [plugin] section`], warnings };
  for (const key of ['name', 'script']) {
    if (!plugin.get(key)) problems.push(`${cfgPath} has no ${key}= in [plugin]`);
  }
  const script = plugin.get('script');
  // Godot resolves the script relative to plugin.cfg's folder (or as a res:// path of the addon).
  if (script) {
    const relative = script.startsWith('res://') ? script.slice('res://'.length) : `addons/${layout.folder}/${script}`;
    if (!files.includes(relative)) problems.push(`${cfgPath} names script "${script}", which the package does not hold`);
  }
  const version = plugin.get('version');
  if (version !== undefined && version !== manifest.version) {
    warnings.push(`${cfgPath} says version "${version}" while package.json says ${String(manifest.version)}`);
  }
  return { problems, warnings };
}
