import { randomBytes } from 'node:crypto';
import { ProtocolError } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import type { TenantId, WebhookDelivery, WebhookRecord, WebhookSecret } from '../storage/ports.js';
import { DELIVERY_WINDOW_MS } from './audit-trail.js';
import { isoAfter } from '../storage/change-log-rules.js';
import { isSubscribable, WEBHOOK_EVENT_GROUPS, WEBHOOK_EVENTS } from './webhook-events.js';
import { secretsInForce } from './webhook-signature.js';

const MAX_URL = 2048;
const MIN_SECRET = 16;
const MAX_SECRET = 256;
/** How long the secret a rotation replaces keeps signing unless told otherwise. */
export const DEFAULT_OVERLAP_HOURS = 24;

export interface NewWebhook {
  url: string;
  events: string[];
  /** Given by the operator, or made here (shown once). */
  secret?: string | undefined;
  createdBy: string;
}

/** A hook as listed: never its secrets, only how many sign now. */
export interface WebhookSummary {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  createdBy: string;
  signingSecrets: number;
}

/**
 * Managing a registry's webhooks (the command line and the HTTP API both call this): add with
 * chosen events, list, remove, rotate the secret without a gap, read and redeliver deliveries.
 */
export class WebhookAdmin {
  readonly #deps: Pick<ServerDeps, 'webhooks' | 'now'>;

  constructor(deps: Pick<ServerDeps, 'webhooks' | 'now'>) {
    this.#deps = deps;
  }

  /** Adds a hook; the answer holds its secret, which is shown this once. */
  async add(tenant: TenantId, input: NewWebhook): Promise<{ hook: WebhookSummary; secret: string }> {
    const url = checkUrl(input.url);
    const events = checkEvents(input.events);
    const secret = input.secret === undefined ? newSecret() : checkSecret(input.secret);
    const now = this.#now();
    const hook: WebhookRecord = {
      id: randomBytes(6).toString('hex'),
      url,
      events,
      secrets: [{ secret, createdAt: now, expiresAt: null }],
      createdAt: now,
      createdBy: input.createdBy,
    };
    if (!(await this.#deps.webhooks.addWebhook(tenant, hook)))
      throw new ProtocolError('NOT_FOUND', `There is no registry '${tenant}'`);
    return { hook: this.#summary(hook), secret };
  }

  async list(tenant: TenantId): Promise<WebhookSummary[]> {
    return (await this.#deps.webhooks.listWebhooks(tenant)).map((hook) => this.#summary(hook));
  }

  async remove(tenant: TenantId, id: string): Promise<void> {
    if (!(await this.#deps.webhooks.removeWebhook(tenant, id))) throw noHook(id);
  }

  /** Changes where the hook posts and which events it is sent (what is not given stays); its secrets stay. */
  async update(
    tenant: TenantId,
    id: string,
    change: { url?: string | undefined; events?: string[] | undefined },
  ): Promise<WebhookSummary> {
    const hook = await this.#hook(tenant, id);
    const next = {
      url: change.url === undefined ? hook.url : checkUrl(change.url),
      events: change.events === undefined ? hook.events : checkEvents(change.events),
    };
    if (!(await this.#deps.webhooks.updateWebhook(tenant, id, next))) throw noHook(id);
    return this.#summary({ ...hook, ...next });
  }

  /**
   * Makes a new secret current. The old one keeps signing for `overlapHours` (both signatures
   * are sent meanwhile), so the receiver can switch whenever it likes within them; 0 ends it now.
   */
  async rotateSecret(
    tenant: TenantId,
    id: string,
    options: { secret?: string | undefined; overlapHours?: number },
  ): Promise<string> {
    const hook = await this.#hook(tenant, id);
    const overlap = options.overlapHours ?? DEFAULT_OVERLAP_HOURS;
    if (!Number.isFinite(overlap) || overlap < 0 || overlap > 24 * 30) {
      throw new ProtocolError('VALIDATION_ERROR', 'The overlap must be from 0 to 720 hours');
    }
    const secret = options.secret === undefined ? newSecret() : checkSecret(options.secret);
    const now = this.#now();
    const until = isoAfter(now, overlap * 3_600_000);
    const kept: WebhookSecret[] = secretsInForce(hook.secrets, now).map((s) => ({
      ...s,
      expiresAt: s.expiresAt === null || s.expiresAt > until ? until : s.expiresAt,
    }));
    const secrets = [{ secret, createdAt: now, expiresAt: null }, ...kept.filter((s) => s.expiresAt! > now)];
    if (!(await this.#deps.webhooks.setWebhookSecrets(tenant, id, secrets))) throw noHook(id);
    return secret;
  }

  async deliveries(tenant: TenantId, id: string, limit = 50): Promise<WebhookDelivery[]> {
    await this.#hook(tenant, id);
    return this.#deps.webhooks.listDeliveries(tenant, id, limit);
  }

  /** Sends a delivery again (given up, or delivered and wanted once more), retried for another day. */
  async redeliver(tenant: TenantId, deliveryId: string): Promise<void> {
    const now = this.#now();
    if (!(await this.#deps.webhooks.redeliver(tenant, deliveryId, now, isoAfter(now, DELIVERY_WINDOW_MS)))) {
      throw new ProtocolError('NOT_FOUND', `There is no delivery '${deliveryId.slice(0, 80)}' in this registry`);
    }
  }

  async #hook(tenant: TenantId, id: string): Promise<WebhookRecord> {
    const hook = (await this.#deps.webhooks.listWebhooks(tenant)).find((h) => h.id === id);
    if (!hook) throw noHook(id);
    return hook;
  }

  #summary(hook: WebhookRecord): WebhookSummary {
    const { id, url, events, createdAt, createdBy } = hook;
    return { id, url, events, createdAt, createdBy, signingSecrets: secretsInForce(hook.secrets, this.#now()).length };
  }

  #now(): string {
    return this.#deps.now().toISOString();
  }
}

function checkUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProtocolError(
      'VALIDATION_ERROR',
      `'${value.slice(0, 80)}' is not a URL: give the receiver's full http:// or https:// URL`,
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || value.length > MAX_URL) {
    throw new ProtocolError('VALIDATION_ERROR', `A webhook URL must be http:// or https:// and at most ${MAX_URL} characters`);
  }
  return url.href;
}

function checkEvents(events: string[]): string[] {
  const unique = [...new Set(events.map((e) => e.trim()).filter((e) => e.length > 0))];
  if (unique.length === 0) throw new ProtocolError('VALIDATION_ERROR', 'Name at least one event (or * for all)');
  const unknown = unique.find((e) => !isSubscribable(e));
  if (unknown !== undefined) {
    throw new ProtocolError(
      'VALIDATION_ERROR',
      `Unknown event '${unknown.slice(0, 80)}': events are ${WEBHOOK_EVENTS.join(', ')}; groups ${WEBHOOK_EVENT_GROUPS.join(', ')}; or *`,
    );
  }
  return unique;
}

function checkSecret(secret: string): string {
  if (secret.length < MIN_SECRET || secret.length > MAX_SECRET || /[\s]/.test(secret)) {
    throw new ProtocolError('VALIDATION_ERROR', `A secret must be ${MIN_SECRET} to ${MAX_SECRET} characters without spaces`);
  }
  return secret;
}

function newSecret(): string {
  return randomBytes(32).toString('hex');
}

function noHook(id: string): ProtocolError {
  return new ProtocolError('NOT_FOUND', `There is no webhook '${id.slice(0, 80)}' in this registry`);
}
