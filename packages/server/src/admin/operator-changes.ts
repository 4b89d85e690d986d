import { userInfo } from 'node:os';
import { AuditTrail, type ChangeRecord } from '../services/audit-trail.js';
import type { Storage } from '../storage/create-storage.js';
import type { TenantId } from '../storage/ports.js';

/** A change the operator made on the server's command line, as a command knows it. */
export type OperatorChange = Pick<ChangeRecord, 'action' | 'target'> & Partial<Pick<ChangeRecord, 'package' | 'details'>>;

/**
 * Records a change made with `pkg-registry` in the audit log: by the operator, on the server,
 * named by the account that ran the command (no registry user, token or address).
 */
export async function recordOperatorChange(
  storage: Pick<Storage, 'audit' | 'webhooks'>,
  tenant: TenantId,
  change: OperatorChange,
): Promise<void> {
  const trail = new AuditTrail({ ...storage, now: () => new Date() });
  await trail.record(tenant, {
    user: null,
    tokenId: null,
    address: null,
    via: 'cli',
    outcome: 'success',
    package: null,
    ...change,
    details: { ...change.details, operator: operatorName() },
  });
}

/** The account that runs the command. */
export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
