import { orNewer } from '../updates/requirement-text.js';
import { ClientError } from '../output/errors.js';
import type { Conflict } from '../updates/raise-dependencies.js';

/** What to do about a conflict, for the `Hint:` line. */
export function conflictHint(conflict: Conflict): string {
  const { name, version } = conflict.requires;
  const dependent = conflict.package.slice(0, conflict.package.lastIndexOf('@'));
  switch (conflict.reason) {
    case 'crosses-major':
      return `${name}@${conflict.version} is a new major version of ${name}: update the dependent package first (pkg update ${name} --latest), or run with --latest.`;
    case 'needs-newer-engine':
      return `${name}@${conflict.version} needs ${orNewer(String(conflict.engineRequirement))}: upgrade the editor, or keep ${dependent} at its current version.`;
    case 'unavailable':
      return `No usable version of ${name} at or above ${version} is published: keep ${dependent} at its current version.`;
    case 'breaks-dependent':
      return `${conflict.package} is a new major version, but ${conflict.dependent} requires ${name}@${version}: update the dependent package first.`;
  }
}

/** Throws `version conflict: …` for the first conflict; the hint mentions how many more there are. */
export function throwOnConflicts(conflicts: readonly Conflict[]): void {
  const first = conflicts[0];
  if (!first) return;
  const more =
    conflicts.length > 1
      ? ` (${conflicts.length - 1} more conflict${conflicts.length > 2 ? 's' : ''}: ${conflicts
          .slice(1)
          .map((c) => c.message)
          .join('; ')})`
      : '';
  throw new ClientError('VERSION_CONFLICT', { message: first.message, hint: `${conflictHint(first)}${more}` });
}
