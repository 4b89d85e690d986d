import type { RouteRequest } from '../http/route-request.js';
import { noteChange } from '../plugins/change-recording.js';
import { packageChangeNotes } from '../services/change-records.js';
import type { PackageChanges } from '../services/package-updates.js';

/** Notes each kind of change one edit of a package document made, for the audit log and webhooks. */
export function notePackageChanges(request: RouteRequest, name: string, changes: PackageChanges): void {
  for (const change of packageChangeNotes(name, changes)) noteChange(request, change);
}
