import { orNewer } from '../updates/requirement-text.js';
import { ClientError } from '../output/errors.js';
import type { Conflict } from '../updates/raise-dependencies.js';

/** The command a conflict stopped: the hint says what to do in its terms. */
export type ConflictCommand = 'add' | 'update' | 'install';

/** What to do about a conflict, for the `Hint:` line. */
export function conflictHint(conflict: Conflict, command: ConflictCommand = 'update'): string {
  const { name, version } = conflict.requires;
  const dependent = conflict.package.slice(0, conflict.package.lastIndexOf('@'));
  const instead =
    command === 'add'
      ? `add another version of ${dependent} (\`pkg info ${dependent}\` lists them)`
      : command === 'install'
        ? `pick another version of ${dependent} with \`pkg add ${dependent}@<version>\``
        : `keep ${dependent} at its current version (update the other packages by name)`;
  switch (conflict.reason) {
    case 'crosses-major':
      return `${name}@${conflict.version} is a new major version of ${name}: update the dependent package first (pkg update ${name} --latest), or run with --latest.`;
    case 'needs-newer-engine':
      return `${name}@${conflict.version} needs ${orNewer(String(conflict.engineRequirement))}: upgrade the editor, or ${instead}.`;
    case 'unavailable':
      return `No usable version ${version} of ${name} is published on the registry that serves it: ${instead}, or publish ${name}@${version} first.`;
    case 'breaks-dependent':
      return `${conflict.package} is a new major version, but ${conflict.dependent} requires ${name}@${version}: update the dependent package first.`;
    case 'manifest-lower':
      return `The manifest lists ${name}@${conflict.version}, which wins over what ${dependent} needs: raise it with \`pkg add ${name}@${version}\`, or ${instead}.`;
  }
}

/** Throws `version conflict: …` for the first conflict; the hint mentions how many more there are. */
export function throwOnConflicts(conflicts: readonly Conflict[], command: ConflictCommand = 'update'): void {
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
    advice: `${conflictHint(first, command)}${more}`,
  });
}
