/**
 * `project.godot`, the settings file Godot 4 writes (an INI dialect: `[section]` lines, then
 * `key=value` lines, a blank line between sections, sections in alphabetical order):
 *
 *     config_version=5
 *
 *     [application]
 *
 *     config/name="Game"
 *     config/features=PackedStringArray("4.2", "Forward Plus")
 *
 *     [editor_plugins]
 *
 *     enabled=PackedStringArray("res://addons/dialog/plugin.cfg")
 *
 * Edits splice text in and out, so every byte they do not name stays, and removing what an
 * edit added gives back the file as it was.
 */

const SECTION = /^\[([^\]\r\n]+)\][ \t]*$/gm;
const ENABLED = /^enabled=PackedStringArray\(([^)\r\n]*)\)[ \t]*$/m;

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** `config_version` (5 for Godot 4, 4 for Godot 3); null when absent. */
export function godotConfigVersion(text: string): number | null {
  const m = /^config_version=(\d+)[ \t]*\r?$/m.exec(text);
  return m ? Number(m[1]) : null;
}

interface Section {
  name: string;
  /** Offset of the `[` of the header. */
  start: number;
  /** Offset just after the header line's end of line. */
  bodyStart: number;
  /** Offset of the next section's header, or the text's length. */
  end: number;
}

function sections(text: string): Section[] {
  const found: { name: string; start: number; headerEnd: number }[] = [];
  for (const m of text.matchAll(SECTION)) {
    found.push({ name: m[1]!, start: m.index, headerEnd: m.index + m[0].length });
  }
  return found.map((s, i) => {
    const newline = text.indexOf('\n', s.headerEnd);
    return {
      name: s.name,
      start: s.start,
      bodyStart: newline === -1 ? text.length : newline + 1,
      end: found[i + 1]?.start ?? text.length,
    };
  });
}

/** The strings of a `PackedStringArray(...)` body; Godot writes them as JSON-style quoted strings. */
function stringsOf(body: string): string[] {
  return [...body.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => {
    try {
      return JSON.parse(`"${m[1]}"`) as string;
    } catch {
      return m[1]!;
    }
  });
}

/** The first `<major>.<minor>` of `config/features` in `[application]`, e.g. `4.2`; null when there is none. */
export function godotFeatureVersion(text: string): string | null {
  const application = sections(text).find((s) => s.name === 'application');
  if (!application) return null;
  const body = text.slice(application.bodyStart, application.end);
  const m = /^config\/features=PackedStringArray\(([^)\r\n]*)\)/m.exec(body);
  if (!m) return null;
  return stringsOf(m[1]!).find((s) => /^\d+\.\d+$/.test(s)) ?? null;
}

/** `4.2.1` from a C# project's `<Project Sdk="Godot.NET.Sdk/4.2.1">`; null when it names none. */
export function godotNetSdkVersion(csproj: string): string | null {
  const m = /Sdk\s*=\s*"Godot\.NET\.Sdk\/(\d+\.\d+\.\d+)[^"]*"/.exec(csproj);
  return m ? m[1]! : null;
}

/**
 * What `enableEditorPlugin` created to hold the value, so that removing the last value removes
 * exactly it again: the `section`, or the `enabled=` `line` in an existing section;
 * `first-line` is the line with the end of line before it (an empty section's first key);
 * `-eol` adds the end of line the file's last line lacked (a file not ending with one).
 */
export type PluginListCreation = 'section' | 'section-eol' | 'line' | 'line-eol' | 'first-line';

/**
 * Adds `value` to `enabled=PackedStringArray(...)` of `[editor_plugins]`, creating the line or
 * the section (in alphabetical place, as Godot orders them) when missing; null when it is listed.
 */
export function enableEditorPlugin(text: string, value: string): { text: string; created?: PluginListCreation } | null {
  const eol = eolOf(text);
  const quoted = JSON.stringify(value);
  const unterminated = text.length > 0 && !text.endsWith('\n');
  const all = sections(text);
  const section = all.find((s) => s.name === 'editor_plugins');
  if (!section) {
    const next = all.find((s) => s.name > 'editor_plugins');
    const block = `[editor_plugins]${eol}${eol}enabled=PackedStringArray(${quoted})${eol}`;
    if (next) return { text: text.slice(0, next.start) + block + eol + text.slice(next.start), created: 'section' };
    return { text: `${unterminated ? text + eol : text}${eol}${block}`, created: unterminated ? 'section-eol' : 'section' };
  }
  const body = text.slice(section.bodyStart, section.end);
  const line = ENABLED.exec(body);
  if (!line) {
    const trimmed = body.replace(/(?:\r?\n)+$/, '');
    const insert = `enabled=PackedStringArray(${quoted})${eol}`;
    if (trimmed.trim() === '') {
      // An empty section: the first key, after the header's end of line (added when it had none).
      const at = section.bodyStart;
      return { text: text.slice(0, at) + eol + insert + text.slice(at), created: 'first-line' };
    }
    // After the section's last key, before the blank line that separates it from the next.
    const at = section.bodyStart + trimmed.length;
    if (at === text.length) return { text: text + eol + insert, created: 'line-eol' };
    return { text: text.slice(0, at + eol.length) + insert + text.slice(at + eol.length), created: 'line' };
  }
  if (stringsOf(line[1]!).includes(value)) return null;
  const listStart = section.bodyStart + line.index + 'enabled=PackedStringArray('.length;
  const listEnd = listStart + line[1]!.length;
  const list = line[1]!.trim() === '' ? quoted : `${line[1]}, ${quoted}`;
  return { text: text.slice(0, listStart) + list + text.slice(listEnd) };
}

/** Removes `value` from `[editor_plugins]`; with `created`, also what enabling it created once the list is empty. */
export function disableEditorPlugin(text: string, value: string, created?: PluginListCreation): string {
  const eol = eolOf(text);
  const all = sections(text);
  const section = all.find((s) => s.name === 'editor_plugins');
  if (!section) return text;
  const body = text.slice(section.bodyStart, section.end);
  const line = ENABLED.exec(body);
  if (!line) return text;
  const items = [...line[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)];
  const index = items.findIndex((m) => stringsOf(m[0])[0] === value);
  if (index === -1) return text;
  const inner = line[1]!;
  const item = items[index]!;
  let list: string;
  if (items.length === 1) list = '';
  else if (index < items.length - 1) list = inner.slice(0, item.index) + inner.slice(items[index + 1]!.index);
  else {
    const previous = items[index - 1]!;
    list = inner.slice(0, previous.index + previous[0].length) + inner.slice(item.index + item[0].length);
  }
  const listStart = section.bodyStart + line.index + 'enabled=PackedStringArray('.length;
  const result = text.slice(0, listStart) + list + text.slice(listStart + inner.length);
  if (list !== '' || created === undefined) return result;

  const lineStart = section.bodyStart + line.index;
  const newline = result.indexOf('\n', lineStart);
  const lineEnd = newline === -1 ? result.length : newline + 1;
  const before = (n: number) => result.slice(n - eol.length, n) === eol;
  // The end of line the edit added before the line, when it is still there.
  const lineFrom = (created === 'first-line' || created === 'line-eol') && before(lineStart) ? lineStart - eol.length : lineStart;
  if (created !== 'section' && created !== 'section-eol') return result.slice(0, lineFrom) + result.slice(lineEnd);
  // The section goes only when nothing else was put in it since.
  const after = sections(result).find((s) => s.name === 'editor_plugins')!;
  const rest = result.slice(after.bodyStart, after.end).replace(/^enabled=PackedStringArray\(\)[ \t]*\r?\n?/m, '');
  if (rest.trim() !== '') return result.slice(0, lineStart) + result.slice(lineEnd);
  if (after.end < result.length) return result.slice(0, after.start) + result.slice(after.end);
  // Last in the file: the blank line before it goes too, and the last line's end when the edit added it.
  let from = after.start;
  if (before(from) && before(from - eol.length)) from -= eol.length;
  if (created === 'section-eol' && before(from)) from -= eol.length;
  return result.slice(0, from) + result.slice(after.end);
}
