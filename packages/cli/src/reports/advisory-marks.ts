/** How `pkg list` and `pkg update` mark a version an advisory affects (text and --json). */

/** What `list` and `update` show of an advisory (the `--json` fields). */
export interface AdvisoryMark {
  id: string;
  severity: string;
  title: string;
  vulnerable_versions: string;
  /** The versions that fix it, as its registry says; null when it does not say (an upstream's, npm's). */
  patched_versions: string | null;
  url: string;
}

/** One line of an advisory: `HIGH  CVE-2026-7  Crash on load (affects <1.1.0, fixed in >=1.1.0)`. */
export function advisoryText(a: AdvisoryMark): string {
  const fixed =
    a.patched_versions !== null && a.patched_versions !== '<0.0.0-0' ? `fixed in ${a.patched_versions}` : 'no fix named';
  return `${a.severity.toUpperCase()}  ${a.id}  ${a.title} (affects ${a.vulnerable_versions}, ${fixed})`;
}
