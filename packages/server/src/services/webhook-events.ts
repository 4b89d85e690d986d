import { actionMatches } from '../storage/change-log-rules.js';

/**
 * The changes a webhook can subscribe to: every recorded change of a package or its advisories
 * or owners, and of who may publish what (teams, their members, the namespaces they own).
 * Account changes (tokens, users, the registry's settings) stay in the audit log only: they are
 * not another system's business, and a receiver should never learn of a token.
 */
export const WEBHOOK_EVENTS = [
  'package.publish',
  'package.unpublish',
  'package.deprecate',
  'package.undeprecate',
  'dist-tag.set',
  'dist-tag.remove',
  'owner.add',
  'owner.remove',
  'advisory.publish',
  'advisory.withdraw',
  'retention.remove',
  'team.create',
  'team.delete',
  'team.member-add',
  'team.member-remove',
  'namespace.claim',
  'namespace.release',
] as const;

/** The groups a subscription may name instead of single events. */
export const WEBHOOK_EVENT_GROUPS = ['package', 'dist-tag', 'owner', 'advisory', 'retention', 'team', 'namespace'] as const;

/** Whether `event` is something a webhook can be sent for. */
export function isWebhookEvent(event: string): boolean {
  return (WEBHOOK_EVENTS as readonly string[]).includes(event);
}

/** A subscription entry a user may write: an event, a group of them, or `*`. */
export function isSubscribable(name: string): boolean {
  return name === '*' || isWebhookEvent(name) || (WEBHOOK_EVENT_GROUPS as readonly string[]).includes(name);
}

/** Whether a hook subscribed to `events` wants `event`. */
export function subscribedTo(events: readonly string[], event: string): boolean {
  return events.some((wanted) => wanted === '*' || actionMatches(event, wanted));
}
