import { randomUUID } from 'node:crypto';
import type {
  AuditEntry,
  AuditLogStore,
  AuditQuery,
  ClaimedDelivery,
  DeliveryAttempt,
  NewWebhookDelivery,
  TenantId,
  WebhookDelivery,
  WebhookRecord,
  WebhookSecret,
  WebhookStore,
} from '../../ports.js';
import type { MemoryPackageWriteHook } from './memory-metadata-store.js';
import { attempted, entryMatches, isoAfter, pendingDelivery } from '../../change-log-rules.js';

interface HeldDelivery {
  tenant: TenantId;
  delivery: WebhookDelivery;
  claim: string | null;
  leaseUntil: string | null;
}

/** The audit log, webhooks and their outbox in process memory: the memory storage's driver. */
export class MemoryChangeLog implements AuditLogStore, WebhookStore {
  readonly #entries: { tenant: TenantId; entry: AuditEntry }[] = [];
  readonly #hooks = new Map<string, { tenant: TenantId; hook: WebhookRecord }>();
  readonly #deliveries = new Map<string, HeldDelivery>();
  readonly #tenantExists: (tenant: TenantId) => boolean;
  #nextId = 1;

  readonly writeHook: MemoryPackageWriteHook = {
    onWrite: () => undefined,
    onTenantDelete: (tenant) => {
      for (let i = this.#entries.length - 1; i >= 0; i--) if (this.#entries[i]!.tenant === tenant) this.#entries.splice(i, 1);
      for (const [key, { tenant: owner }] of this.#hooks) if (owner === tenant) this.#hooks.delete(key);
      for (const [id, held] of this.#deliveries) if (held.tenant === tenant) this.#deliveries.delete(id);
    },
  };

  constructor(tenantExists: (tenant: TenantId) => boolean = () => true) {
    this.#tenantExists = tenantExists;
  }

  async append(tenant: TenantId, entry: Omit<AuditEntry, 'id'>, deliveries: readonly NewWebhookDelivery[]): Promise<void> {
    if (!this.#tenantExists(tenant)) return;
    this.#entries.push({ tenant, entry: structuredClone({ ...entry, id: String(this.#nextId++) }) });
    for (const delivery of deliveries) {
      this.#deliveries.set(delivery.id, {
        tenant,
        delivery: pendingDelivery(structuredClone(delivery)),
        claim: null,
        leaseUntil: null,
      });
    }
  }

  async query(tenant: TenantId, query: AuditQuery): Promise<AuditEntry[]> {
    const found: AuditEntry[] = [];
    for (let i = this.#entries.length - 1; i >= 0 && found.length < query.limit; i--) {
      const { tenant: owner, entry } = this.#entries[i]!;
      if (owner !== tenant || (query.before !== undefined && Number(entry.id) >= Number(query.before))) continue;
      if (entryMatches(entry, query)) found.push(structuredClone(entry));
    }
    return found;
  }

  async prune(before: string): Promise<number> {
    const kept = this.#entries.filter(({ entry }) => entry.at >= before);
    const removed = this.#entries.length - kept.length;
    this.#entries.splice(0, this.#entries.length, ...kept);
    for (const [id, { delivery }] of this.#deliveries) {
      if (delivery.status !== 'pending' && delivery.createdAt < before) this.#deliveries.delete(id);
    }
    return removed;
  }

  async copyEntries(tenant: TenantId, entries: readonly AuditEntry[]): Promise<number> {
    if (!this.#tenantExists(tenant)) return 0;
    const taken = new Set(this.#entries.map(({ entry }) => entry.id));
    let written = 0;
    for (const entry of entries) {
      if (taken.has(entry.id)) continue;
      // Kept in id order, the order query() walks.
      const at = this.#entries.findIndex((held) => Number(held.entry.id) > Number(entry.id));
      this.#entries.splice(at === -1 ? this.#entries.length : at, 0, { tenant, entry: structuredClone(entry) });
      this.#nextId = Math.max(this.#nextId, Number(entry.id) + 1);
      taken.add(entry.id);
      written++;
    }
    return written;
  }

  async addWebhook(tenant: TenantId, hook: WebhookRecord): Promise<boolean> {
    if (!this.#tenantExists(tenant)) return false;
    this.#hooks.set(`${tenant}\0${hook.id}`, { tenant, hook: structuredClone(hook) });
    return true;
  }

  async listWebhooks(tenant: TenantId): Promise<WebhookRecord[]> {
    return [...this.#hooks.values()].filter((h) => h.tenant === tenant).map((h) => structuredClone(h.hook));
  }

  async removeWebhook(tenant: TenantId, id: string): Promise<boolean> {
    if (!this.#hooks.delete(`${tenant}\0${id}`)) return false;
    for (const [key, held] of this.#deliveries)
      if (held.tenant === tenant && held.delivery.hook === id) this.#deliveries.delete(key);
    return true;
  }

  async setWebhookSecrets(tenant: TenantId, id: string, secrets: readonly WebhookSecret[]): Promise<boolean> {
    const held = this.#hooks.get(`${tenant}\0${id}`);
    if (!held) return false;
    held.hook.secrets = structuredClone([...secrets]);
    return true;
  }

  async updateWebhook(tenant: TenantId, id: string, change: Pick<WebhookRecord, 'url' | 'events'>): Promise<boolean> {
    const held = this.#hooks.get(`${tenant}\0${id}`);
    if (!held) return false;
    held.hook = { ...held.hook, url: change.url, events: [...change.events] };
    return true;
  }

  async listDeliveries(tenant: TenantId, hook: string, limit: number): Promise<WebhookDelivery[]> {
    return [...this.#deliveries.values()]
      .filter((held) => held.tenant === tenant && held.delivery.hook === hook)
      .map((held) => structuredClone(held.delivery))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .slice(0, limit);
  }

  async claimDeliveries(now: string, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const claimed: ClaimedDelivery[] = [];
    const due = [...this.#deliveries.values()]
      .filter((held) => held.delivery.status === 'pending' && held.delivery.nextAttemptAt <= now)
      .filter((held) => held.leaseUntil === null || held.leaseUntil <= now)
      .sort((a, b) => (a.delivery.nextAttemptAt < b.delivery.nextAttemptAt ? -1 : 1));
    for (const held of due.slice(0, limit)) {
      const hook = this.#hooks.get(`${held.tenant}\0${held.delivery.hook}`)?.hook;
      if (!hook) continue;
      held.claim = randomUUID();
      held.leaseUntil = isoAfter(now, leaseMs);
      claimed.push({
        delivery: structuredClone(held.delivery),
        tenant: held.tenant,
        url: hook.url,
        secrets: structuredClone(hook.secrets),
        claim: held.claim,
      });
    }
    return claimed;
  }

  async finishDelivery(id: string, claim: string, attempt: DeliveryAttempt): Promise<boolean> {
    const held = this.#deliveries.get(id);
    if (!held || held.claim !== claim) return false;
    held.delivery = attempted(held.delivery, attempt);
    held.claim = null;
    held.leaseUntil = null;
    return true;
  }

  async redeliver(tenant: TenantId, id: string, now: string, giveUpAt: string): Promise<boolean> {
    const held = this.#deliveries.get(id);
    if (!held || held.tenant !== tenant) return false;
    held.delivery = { ...held.delivery, status: 'pending', nextAttemptAt: now, giveUpAt };
    return true;
  }

  async putDelivery(tenant: TenantId, delivery: WebhookDelivery): Promise<boolean> {
    if (!this.#hooks.has(`${tenant}\0${delivery.hook}`)) return false;
    const held = this.#deliveries.get(delivery.id);
    if (held && (held.tenant !== tenant || held.delivery.hook !== delivery.hook)) return false;
    this.#deliveries.set(delivery.id, { tenant, delivery: structuredClone(delivery), claim: null, leaseUntil: null });
    return true;
  }
}
