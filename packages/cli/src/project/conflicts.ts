import { orNewer } from '../resolve/requirement-text.js';
import { ClientError } from '../errors/client-errors.js';
import type { Conflict } from '../resolve/raise-dependencies.js';

/** The command a conflict stopped: the hint says what to do in its terms. */
export type ConflictCommand = 'add' | 'update' | 'install';

/**
 * What resolving again with `--latest` gave, so a hint suggests the flag only when it works:
 * the conflicts it still meets (empty: it works), or undefined when the run had `--latest`
 * already or the command has no such flag.
 */
export type LatestRetry = readonly Conflict[] | undefined;

/** What to do about a conflict, for the `Hint:` line. */
export function conflictHint(conflict: Conflict, command: ConflictCommand = 'update', latest?: LatestRetry): string {
  const { name, version } = conflict.requires;
  const dependent = conflict.package.slice(0, conflict.package.lastIndexOf('@'));
  const instead =
    command === 'add'
      ? `add another version of ${dependent} (\`pkg info ${dependent}\` lists them)`
      : command === 'install'
        ? `pick another version of ${dependent} with \`pkg add ${dependent}@<version>\``
        : `keep ${dependent} at its current version (update the other packages by name)`;
  switch (conflict.reason) {
    case 'crosses-major': {
      const start = `${name}@${conflict.version} is a new major version of ${name}`;
      if (latest === undefined) return `${start}: ${instead}.`;
      if (latest.length === 0) return `${start}: run again with --latest to allow it, or ${instead}.`;
      // --latest would not do either: say what stops it instead of suggesting it.
      return `${start}, and --latest would not help (${latest[0]!.message}): ${instead}.`;
    }
    case 'needs-newer-engine':
      return `${name}@${conflict.version} needs ${orNewer(String(conflict.engineRequirement))}: upgrade the editor, or ${instead}.`;
    case 'unavailable':
      return `No usable version ${version} of ${name} is published on the registry that serves it: ${instead}, or publish ${name}@${version} first.`;
    case 'breaks-dependent':
      return `${conflict.package} is a new major version, but ${conflict.dependent} requires ${name}@${version}: update the dependent package first.`;
    case 'manifest-lower':
      return command === 'add'
        ? `${conflict.package} needs ${name}@${version} or newer within its major, and the manifest would list ${name}@${conflict.version}: add ${name}@${version} or newer, or ${instead}.`
        : `The manifest lists ${name}@${conflict.version}, which wins over what ${dependent} needs: raise it with \`pkg add ${name}@${version}\`, or ${instead}.`;
    case 'two-majors':
      return `The project would need ${name}@${version} and ${name}@${conflict.version}, of two majors; a project holds one version of a package: ${instead}.`;
  }
}

/** One line per conflict, for reports that show them (a dry run). */
export function conflictLines(conflicts: readonly Conflict[], command: ConflictCommand, latest?: LatestRetry): string[] {
  return conflicts.map((c) => `${c.message.replace(/^version conflict: /, '')}: ${conflictHint(c, command, latest)}`);
}

/** Throws `version conflict: …` for the first conflict; the hint mentions how many more there are. */
export function throwOnConflicts(
  conflicts: readonly Conflict[],
  command: ConflictCommand = 'update',
  latest?: LatestRetry,
): void {
  const first = conflicts[0];
  if (!first) return;
  const more =
    conflicts.length > 1
      ? ` (${conflicts.length - 1} more conflict${conflicts.length > 2 ? 's' : ''}: ${conflicts
          .slice(1)
          .map((c) => c.message)
          .join('; ')})`
      : '';
  throw new ClientError('VERSION_CONFLICT', {
    conflict: first.message.replace(/^version conflict: /, ''),
    advice: `${conflictHint(first, command, latest)}${more}`,
  });
}
