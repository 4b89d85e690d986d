/**
 * `ProjectSettings/ProjectVersion.txt`, which the editor writes on every save:
 *
 *     m_EditorVersion: 2022.3.10f1
 *     m_EditorVersionWithRevision: 2022.3.10f1 (ff3792e53c62)
 */
const EDITOR_VERSION_LINE = /^m_EditorVersion:[ \t]*(\S+)[ \t]*$/m;

/** The `m_EditorVersion` value, or null when the file has none. */
export function editorVersionFromProjectVersionTxt(text: string): string | null {
  return EDITOR_VERSION_LINE.exec(text.replace(/\r/g, ''))?.[1] ?? null;
}
