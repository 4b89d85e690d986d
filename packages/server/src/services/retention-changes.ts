import type { AuditTrail, ChangeRecord } from './audit-trail.js';
import type { RetentionRemoval } from './retention.js';

/** Records each pre-release retention removed in its registry's audit log (and to webhooks subscribed to `retention`). */
export async function recordRetentionRemovals(
  trail: Pick<AuditTrail, 'record'>,
  removals: readonly RetentionRemoval[],
  who: Pick<ChangeRecord, 'via' | 'details'>,
): Promise<void> {
  for (const removal of removals) {
    await trail.record(removal.tenant, {
      action: 'retention.remove',
      outcome: 'success',
      user: null,
      tokenId: null,
      address: null,
      via: who.via,
      package: removal.name,
      target: `${removal.name}@${removal.version}`,
      details: { ...who.details, version: removal.version, rule: removal.reason },
    });
  }
}
