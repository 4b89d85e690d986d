import type { AuditEntry, AuditQuery, DeliveryAttempt, NewWebhookDelivery, WebhookDelivery } from './ports.js';

/**
 * The rules every driver of the change log shares, so that they answer alike: which entries a
 * query matches, and how long a claim of a delivery lasts.
 */

/** Whether `action` is the query's action or one of its group (`owner` matches `owner.add`). */
export function actionMatches(action: string, wanted: string): boolean {
  return action === wanted || action.startsWith(`${wanted}.`);
}

/** Every filter of `query` but its limit and paging, applied to one entry. */
export function entryMatches(entry: AuditEntry, query: AuditQuery): boolean {
  if (query.user !== undefined && entry.user !== query.user) return false;
  if (query.package !== undefined && entry.package !== query.package) return false;
  if (query.action !== undefined && !actionMatches(entry.action, query.action)) return false;
  if (query.outcome !== undefined && entry.outcome !== query.outcome) return false;
  if (query.since !== undefined && entry.at < query.since) return false;
  if (query.until !== undefined && entry.at > query.until) return false;
  return true;
}

/** A pending delivery's state when it is first written to the outbox. */
export function pendingDelivery(delivery: NewWebhookDelivery): WebhookDelivery {
  return {
    ...delivery,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: delivery.createdAt,
    lastAttemptAt: null,
    lastStatus: null,
    lastError: null,
  };
}

/** `now` plus `ms`, as the ISO text every driver compares. */
export function isoAfter(now: string, ms: number): string {
  return new Date(Date.parse(now) + ms).toISOString();
}

/** A delivery after one more attempt. */
export function attempted(delivery: WebhookDelivery, attempt: DeliveryAttempt): WebhookDelivery {
  return {
    ...delivery,
    status: attempt.status,
    attempts: delivery.attempts + 1,
    nextAttemptAt: attempt.nextAttemptAt,
    lastAttemptAt: attempt.at,
    lastStatus: attempt.lastStatus,
    lastError: attempt.lastError,
  };
}
