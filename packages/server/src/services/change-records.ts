import type { Caller } from '../context.js';
import type { ChangeRecord } from './audit-trail.js';
import type { PackageChanges } from './package-updates.js';

/** A change a handler made, as it notes it for the audit log; the request gives who and from where. */
export type NotedChange = Pick<ChangeRecord, 'action' | 'target'> & Partial<Pick<ChangeRecord, 'package' | 'details' | 'user'>>;

/** A change as the audit log needs it, without who made it. */
export type PackageChangeNote = Pick<ChangeRecord, 'action' | 'package' | 'target' | 'details'>;

/** Who made a change over HTTP, as the audit log records it (never the token: a prefix of its hash). */
export function actorOf(
  caller: Caller | null | undefined,
  address: string,
): Pick<ChangeRecord, 'user' | 'tokenId' | 'address' | 'via'> {
  return { user: caller?.user ?? null, tokenId: caller?.tokenHash?.slice(0, 16) ?? null, address, via: 'http' };
}

/** Each kind of change one edit of a package document made, for the audit log and webhooks. */
export function packageChangeNotes(name: string, changes: PackageChanges): PackageChangeNote[] {
  const notes: PackageChangeNote[] = [];
  const note = (action: string, target: string, details: Record<string, unknown>) =>
    notes.push({ action, package: name, target, details });
  for (const owner of changes.ownersAdded) note('owner.add', `${name} owner ${owner}`, { owner });
  for (const owner of changes.ownersRemoved) note('owner.remove', `${name} owner ${owner}`, { owner });
  for (const version of changes.deprecated) note('package.deprecate', `${name}@${version}`, { version });
  for (const version of changes.undeprecated) note('package.undeprecate', `${name}@${version}`, { version });
  if (changes.wholePackage) note('package.unpublish', name, { versions: changes.unpublished });
  else for (const version of changes.unpublished) note('package.unpublish', `${name}@${version}`, { version });
  return notes;
}
