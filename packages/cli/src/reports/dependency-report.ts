/**
 * The packages a Godot or Unreal project holds only because others need them, as `add`,
 * `update` and `uninstall` report them: their folders appear and go with the change too.
 */
import type { DependencyChanges } from '../resolve/diff.js';

export function dependencyLines(changes: DependencyChanges | undefined): string[] {
  if (!changes) return [];
  const lines: string[] = [];
  if (changes.installed.length > 0) {
    lines.push(
      '',
      'Dependencies Installed:',
      ...changes.installed.map((d) =>
        d.previous ? `  ${d.package}: ${d.previous} → ${d.version}` : `  ${d.package}@${d.version}`,
      ),
    );
  }
  if (changes.removed.length > 0) {
    lines.push('', 'Dependencies Removed:', ...changes.removed.map((d) => `  ${d.package}@${d.version}`));
  }
  return lines;
}

/** `dependencies` of the JSON report; absent for engines whose packages pkg does not install. */
export function dependencyJson(changes: DependencyChanges | undefined) {
  if (!changes) return {};
  return {
    dependencies: {
      installed: changes.installed.map((d) => ({
        package: d.package,
        version: d.version,
        ...(d.previous ? { previous_version: d.previous } : {}),
      })),
      removed: changes.removed,
    },
  };
}
