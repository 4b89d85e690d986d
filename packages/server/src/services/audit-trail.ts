import { randomUUID } from 'node:crypto';
import type { ServerDeps } from '../deps.js';
import { isoAfter } from '../storage/change-log-rules.js';
import type { AuditEntry, AuditQuery, ChangeOutcome, NewWebhookDelivery, TenantId } from '../storage/ports.js';
import { isWebhookEvent, subscribedTo } from './webhook-events.js';

/** A change as its recorder knows it; the trail adds the time. */
export interface ChangeRecord {
  action: string;
  outcome: ChangeOutcome;
  user: string | null;
  tokenId: string | null;
  address: string | null;
  via: AuditEntry['via'];
  package?: string | null;
  target: string;
  reason?: string | null;
  details?: Record<string, unknown>;
}

/** How long a delivery is retried before it is given up. */
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;

export type AuditTrailDeps = Pick<ServerDeps, 'audit' | 'webhooks' | 'now'>;

/**
 * The one record of changes: every change the server makes, and every refused attempt at one,
 * goes here once. A successful change a webhook subscribed to also becomes a delivery in the
 * outbox, in the same transaction (webhook-dispatcher.ts sends it). Only writes call it: reads
 * never pay for it.
 */
export class AuditTrail {
  readonly #deps: AuditTrailDeps;
  readonly #onDelivery: () => void;

  /** `onDelivery` is told when deliveries were added (this node's dispatcher sends them at once). */
  constructor(deps: AuditTrailDeps, onDelivery: () => void = () => undefined) {
    this.#deps = deps;
    this.#onDelivery = onDelivery;
  }

  async record(tenant: TenantId, change: ChangeRecord): Promise<void> {
    const at = this.#deps.now().toISOString();
    const entry: Omit<AuditEntry, 'id'> = {
      at,
      action: change.action,
      outcome: change.outcome,
      user: change.user,
      tokenId: change.tokenId,
      address: change.address,
      via: change.via,
      package: change.package ?? null,
      target: change.target,
      reason: change.reason ?? null,
      details: change.details ?? {},
    };
    const deliveries =
      change.outcome === 'success' && isWebhookEvent(change.action) ? await this.#deliveriesOf(tenant, entry) : [];
    await this.#deps.audit.append(tenant, entry, deliveries);
    if (deliveries.length > 0) this.#onDelivery();
  }

  query(tenant: TenantId, query: AuditQuery): Promise<AuditEntry[]> {
    return this.#deps.audit.query(tenant, query);
  }

  /** Removes entries older than `days` days (and finished deliveries as old); returns the entries removed. */
  prune(days: number): Promise<number> {
    return this.#deps.audit.prune(new Date(this.#deps.now().getTime() - days * 86_400_000).toISOString());
  }

  async #deliveriesOf(tenant: TenantId, entry: Omit<AuditEntry, 'id'>): Promise<NewWebhookDelivery[]> {
    const hooks = (await this.#deps.webhooks.listWebhooks(tenant)).filter((hook) => subscribedTo(hook.events, entry.action));
    return hooks.map((hook) => {
      const id = randomUUID();
      return {
        id,
        hook: hook.id,
        event: entry.action,
        payload: JSON.stringify(webhookPayload(tenant, id, entry)),
        createdAt: entry.at,
        giveUpAt: isoAfter(entry.at, DELIVERY_WINDOW_MS),
      };
    });
  }
}

/**
 * The JSON body of a webhook: what changed, where and by whom. Never the token id or the client
 * address: a receiver is another system, and those stay in the audit log.
 */
export function webhookPayload(tenant: TenantId, delivery: string, entry: Omit<AuditEntry, 'id'>): Record<string, unknown> {
  return {
    event: entry.action,
    delivery,
    registry: tenant === '' ? null : tenant,
    at: entry.at,
    package: entry.package,
    target: entry.target,
    user: entry.user,
    details: entry.details,
  };
}
