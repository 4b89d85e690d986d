/**
 * The dependency manifest every engine's project keeps (Unity's `Packages/manifest.json`, and
 * `pkg.json` beside a Godot or Unreal project, shaped like it): reading it into the engine-neutral
 * `ProjectManifest` and editing its text without disturbing anything the change does not name.
 */
import { jsonSyntaxProblem } from '../json/json-syntax.js';
import { appendJsonElement, removeJsonValue, setJsonValue } from '../json/json-edit.js';
import type { ManifestChange, ProjectManifest, ScopedRegistry } from './engine.js';
import { sameRegistryUrl } from './registry-url.js';

const BOM = '\uFEFF';

/** Why a manifest value is not a valid dependency manifest; null when it is. */
export function dependencyManifestProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not a JSON object';
  const { dependencies, scopedRegistries, registry } = value as Record<string, unknown>;
  if (registry !== undefined && typeof registry !== 'string') return '"registry" is not a string';
  if (dependencies !== undefined) {
    if (typeof dependencies !== 'object' || dependencies === null || Array.isArray(dependencies)) {
      return '"dependencies" is not an object';
    }
    for (const [name, version] of Object.entries(dependencies)) {
      if (typeof version !== 'string') return `the version of "${name}" in "dependencies" is not a string`;
    }
  }
  if (scopedRegistries !== undefined) {
    if (!Array.isArray(scopedRegistries)) return '"scopedRegistries" is not an array';
    for (const [i, entry] of scopedRegistries.entries()) {
      const e = entry as Record<string, unknown> | null;
      if (typeof e !== 'object' || e === null) return `scopedRegistries[${i}] is not an object`;
      if (typeof e.name !== 'string') return `scopedRegistries[${i}].name is not a string`;
      if (typeof e.url !== 'string') return `scopedRegistries[${i}].url is not a string`;
      if (!Array.isArray(e.scopes) || !e.scopes.every((s) => typeof s === 'string')) {
        return `scopedRegistries[${i}].scopes is not an array of strings`;
      }
    }
  }
  return null;
}

/**
 * Parses manifest text into the engine-neutral model; throws an Error saying what is wrong
 * (the caller adds which file).
 */
export function parseDependencyManifest(text: string): ProjectManifest {
  const problem = jsonSyntaxProblem(stripBom(text));
  if (problem) throw new Error(`it is not valid JSON: ${problem}`);
  const value: unknown = JSON.parse(stripBom(text));
  const shape = dependencyManifestProblem(value);
  if (shape) throw new Error(shape);
  const v = value as { dependencies?: Record<string, string>; scopedRegistries?: ScopedRegistry[]; registry?: string };
  return {
    dependencies: { ...v.dependencies },
    scopedRegistries: (v.scopedRegistries ?? []).map((r) => ({ name: r.name, url: r.url, scopes: [...r.scopes] })),
    ...(v.registry ? { registry: v.registry } : {}),
  };
}

function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(BOM.length) : text;
}

/** Applies `change` to manifest text; every byte the change does not name stays as it was. */
export function editDependencyManifest(text: string, change: ManifestChange): string {
  const bom = text.startsWith(BOM) ? BOM : '';
  let body = stripBom(text);
  for (const name of change.remove ?? []) body = removeJsonValue(body, ['dependencies', name]);
  // Unity keeps `dependencies` sorted; a new one goes in its place when the file is sorted.
  for (const [name, version] of Object.entries(change.set ?? {})) {
    body = setJsonValue(body, ['dependencies', name], version, 'sorted');
  }
  if (change.registry) body = editRegistryEntry(body, change.registry);
  for (const entry of change.registries ?? []) body = editRegistryEntry(body, entry);
  return bom + body;
}

function editRegistryEntry(text: string, wanted: ScopedRegistry): string {
  const current = parseDependencyManifest(text).scopedRegistries;
  const index = current.findIndex((r) => sameRegistryUrl(r.url, wanted.url));
  if (index === -1) {
    if (wanted.scopes.length === 0) return text;
    const entry = { name: wanted.name, url: wanted.url, scopes: wanted.scopes };
    const raw = JSON.parse(text) as Record<string, unknown>;
    if (raw.scopedRegistries === undefined) return setJsonValue(text, ['scopedRegistries'], [entry]);
    return appendJsonElement(text, ['scopedRegistries'], entry);
  }
  // Unity rejects a scoped registry without scopes, so an entry that no longer serves anything
  // goes; with the last one, the list goes too (no `"scopedRegistries": []` left behind).
  if (wanted.scopes.length === 0) {
    return current.length === 1
      ? removeJsonValue(text, ['scopedRegistries'])
      : removeJsonValue(text, ['scopedRegistries', index]);
  }
  const scopes = current[index]!.scopes;
  if (scopes.length === wanted.scopes.length && scopes.every((s, i) => s === wanted.scopes[i])) return text;
  return setJsonValue(text, ['scopedRegistries', index, 'scopes'], wanted.scopes);
}
