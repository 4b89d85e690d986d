import type { FastifyRequest } from 'fastify';
import { noteChange } from '../plugins/change-recording.js';
import type { PackageChanges } from '../services/package-updates.js';

/** Notes each kind of change one edit of a package document made, for the audit log and webhooks. */
export function notePackageChanges(request: FastifyRequest, name: string, changes: PackageChanges): void {
  const note = (action: string, target: string, details: Record<string, unknown>) =>
    noteChange(request, { action, package: name, target, details });
  for (const owner of changes.ownersAdded) note('owner.add', `${name} owner ${owner}`, { owner });
  for (const owner of changes.ownersRemoved) note('owner.remove', `${name} owner ${owner}`, { owner });
  for (const version of changes.deprecated) note('package.deprecate', `${name}@${version}`, { version });
  for (const version of changes.undeprecated) note('package.undeprecate', `${name}@${version}`, { version });
  if (changes.wholePackage) note('package.unpublish', name, { versions: changes.unpublished });
  else for (const version of changes.unpublished) note('package.unpublish', `${name}@${version}`, { version });
}

/** The versions a publish document carries (npm sends the one it publishes). */
export function versionsOf(document: unknown): string[] {
  const versions = (document as { versions?: unknown } | null)?.versions;
  return versions !== null && typeof versions === 'object' ? Object.keys(versions) : [];
}
