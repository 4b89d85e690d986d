import type { ChangeRecord } from './audit-trail.js';

export type TeamChangeKind = 'create' | 'delete' | 'add' | 'remove' | 'claim' | 'release';

/** A change of teams as the audit log records it, from the HTTP API and the command line alike. */
export function teamChange(
  kind: TeamChangeKind,
  team: string,
  other?: string,
): Pick<ChangeRecord, 'action' | 'target' | 'details'> {
  switch (kind) {
    case 'create':
      return { action: 'team.create', target: `team ${team}`, details: {} };
    case 'delete':
      return { action: 'team.delete', target: `team ${team}`, details: {} };
    case 'add':
      return { action: 'team.member-add', target: `team ${team}`, details: { member: other } };
    case 'remove':
      return { action: 'team.member-remove', target: `team ${team}`, details: { member: other } };
    case 'claim':
      return { action: 'namespace.claim', target: `namespace ${other}`, details: { team } };
    case 'release':
      return { action: 'namespace.release', target: `namespace ${other}`, details: { team } };
  }
}
