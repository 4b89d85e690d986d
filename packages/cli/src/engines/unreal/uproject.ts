/**
 * The `.uproject` file: JSON as Unreal writes it (tab-indented, keys in Unreal's order). Plugins
 * are enabled in its `Plugins` array; edits go through the format-keeping JSON editor, so the
 * tabs, the key order and every other byte stay, and undoing an edit gives the file back.
 */
import { appendJsonElement, removeJsonValue, setJsonValue } from '../../json/json-edit.js';

const BOM = '\uFEFF';

interface PluginEntry {
  Name?: unknown;
  Enabled?: unknown;
}

function parse(text: string): { EngineAssociation?: unknown; Plugins?: unknown } {
  const value = JSON.parse(text.startsWith(BOM) ? text.slice(1) : text) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('it is not a JSON object');
  return value;
}

/** `EngineAssociation`: `5.3` for a launcher install, a GUID or '' for a source build. Throws on bad JSON. */
export function engineAssociation(text: string): string {
  const association = parse(text).EngineAssociation;
  return typeof association === 'string' ? association : '';
}

/** Why the text is not a `.uproject` pkg can edit; null when it is fine. */
export function uprojectProblem(text: string): string | null {
  try {
    const plugins = parse(text).Plugins;
    if (plugins !== undefined && !Array.isArray(plugins)) return '"Plugins" is not an array';
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function withoutBom(text: string, edit: (body: string) => string): string {
  const bom = text.startsWith(BOM) ? BOM : '';
  return bom + edit(text.slice(bom.length));
}

function pluginIndex(body: string, name: string): number {
  const plugins = (JSON.parse(body) as { Plugins?: PluginEntry[] }).Plugins;
  return Array.isArray(plugins) ? plugins.findIndex((p) => p?.Name === name) : -1;
}

export type PluginCreation = 'plugins' | 'enabled';

/**
 * Adds `{"Name": name, "Enabled": true}` to `Plugins` (created when missing); an entry that is
 * there but disabled is switched on instead. Null when the plugin is enabled already.
 */
export function enableUnrealPlugin(
  text: string,
  name: string,
): { text: string; created?: PluginCreation; previous?: unknown } | null {
  const parsed = parse(text);
  if (parsed.Plugins === undefined) {
    return { text: withoutBom(text, (b) => setJsonValue(b, ['Plugins'], [{ Name: name, Enabled: true }])), created: 'plugins' };
  }
  const plugins = parsed.Plugins as PluginEntry[];
  const at = plugins.findIndex((p) => p?.Name === name);
  if (at === -1) {
    return { text: withoutBom(text, (b) => appendJsonElement(b, ['Plugins'], { Name: name, Enabled: true })) };
  }
  const entry = plugins[at]!;
  if (entry.Enabled === true) return null;
  const updated = withoutBom(text, (b) => setJsonValue(b, ['Plugins', at, 'Enabled'], true));
  return entry.Enabled === undefined ? { text: updated, created: 'enabled' } : { text: updated, previous: entry.Enabled };
}

/** Undoes `enableUnrealPlugin`: the entry goes (and `Plugins` with it when the edit created it and it is empty). */
export function disableUnrealPlugin(text: string, name: string, edit: { created?: string; previous?: unknown }): string {
  return withoutBom(text, (body) => {
    const at = pluginIndex(body, name);
    if (at === -1) return body;
    if (edit.previous !== undefined) return setJsonValue(body, ['Plugins', at, 'Enabled'], edit.previous);
    if (edit.created === 'enabled') return removeJsonValue(body, ['Plugins', at, 'Enabled']);
    const removed = removeJsonValue(body, ['Plugins', at]);
    const left = (JSON.parse(removed) as { Plugins?: unknown[] }).Plugins;
    return edit.created === 'plugins' && Array.isArray(left) && left.length === 0
      ? removeJsonValue(removed, ['Plugins'])
      : removed;
  });
}
