import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from './pg-connection.js';
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
import { attempted, isoAfter, pendingDelivery } from '../../change-log-rules.js';
import type { PostgresMigration } from './migrations.js';
import type { PostgresPackageWriteHook } from './postgres-metadata-store.js';

export const POSTGRES_CHANGE_LOG_MIGRATIONS: readonly PostgresMigration[] = [
  `
  CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    tenant text NOT NULL,
    at text NOT NULL,
    action text NOT NULL,
    outcome text NOT NULL,
    "user" text,
    package text,
    record text NOT NULL
  );
  CREATE INDEX audit_log_by_tenant ON audit_log (tenant, id);
  CREATE INDEX audit_log_by_time ON audit_log (at);
  CREATE TABLE webhooks (
    tenant text NOT NULL,
    id text NOT NULL,
    record text NOT NULL,
    PRIMARY KEY (tenant, id)
  );
  CREATE TABLE webhook_deliveries (
    id text PRIMARY KEY,
    tenant text NOT NULL,
    hook text NOT NULL,
    status text NOT NULL,
    created_at text NOT NULL,
    next_attempt_at text NOT NULL,
    lease_until text,
    claim text,
    record text NOT NULL
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
  CREATE INDEX webhook_deliveries_of_hook ON webhook_deliveries (tenant, hook, created_at);
  `,
];

/**
 * The audit log, webhooks and their outbox in PostgreSQL, shared by every node. Nodes claim due
 * deliveries with `FOR UPDATE SKIP LOCKED` and a lease: each delivery is sent by one node at a
 * time, and one whose node died is claimed again when its lease ends.
 */
export class PostgresChangeLog implements AuditLogStore, WebhookStore {
  #pool: pg.Pool | undefined;

  readonly writeHook: PostgresPackageWriteHook = {
    name: 'change-log',
    migrations: POSTGRES_CHANGE_LOG_MIGRATIONS,
    onWrite: async () => undefined,
    onTenantDelete: async (client, tenant) => {
      for (const table of ['audit_log', 'webhooks', 'webhook_deliveries']) {
        await client.query(`DELETE FROM ${table} WHERE tenant = $1`, [tenant]);
      }
    },
  };

  attach(pool: pg.Pool): void {
    this.#pool = pool;
  }

  async append(tenant: TenantId, entry: Omit<AuditEntry, 'id'>, deliveries: readonly NewWebhookDelivery[]): Promise<void> {
    await inTransaction(this.#requirePool(), async (client) => {
      if (!(await tenantExists(client, tenant))) return;
      await client.query(
        'INSERT INTO audit_log (tenant, at, action, outcome, "user", package, record) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [tenant, entry.at, entry.action, entry.outcome, entry.user, entry.package, JSON.stringify(entry)],
      );
      for (const d of deliveries) {
        await client.query(
          `INSERT INTO webhook_deliveries (id, tenant, hook, status, created_at, next_attempt_at, record)
           VALUES ($1, $2, $3, 'pending', $4, $4, $5)`,
          [d.id, tenant, d.hook, d.createdAt, JSON.stringify(pendingDelivery(d))],
        );
      }
    });
  }

  async query(tenant: TenantId, query: AuditQuery): Promise<AuditEntry[]> {
    const where = ['tenant = $1'];
    const args: unknown[] = [tenant];
    const arg = (value: unknown) => `$${args.push(value)}`;
    if (query.before !== undefined) where.push(`id < ${arg(query.before)}`);
    if (query.user !== undefined) where.push(`"user" = ${arg(query.user)}`);
    if (query.package !== undefined) where.push(`package = ${arg(query.package)}`);
    if (query.action !== undefined)
      where.push(`(action = ${arg(query.action)} OR starts_with(action, ${arg(`${query.action}.`)}))`);
    if (query.outcome !== undefined) where.push(`outcome = ${arg(query.outcome)}`);
    if (query.since !== undefined) where.push(`at >= ${arg(query.since)}`);
    if (query.until !== undefined) where.push(`at <= ${arg(query.until)}`);
    const { rows } = await this.#requirePool().query<{ id: string; record: string }>(
      `SELECT id, record FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${arg(query.limit)}`,
      args,
    );
    return rows.map((row) => ({ ...(JSON.parse(row.record) as Omit<AuditEntry, 'id'>), id: String(row.id) }));
  }

  async prune(before: string): Promise<number> {
    return inTransaction(this.#requirePool(), async (client) => {
      const removed = await client.query('DELETE FROM audit_log WHERE at < $1', [before]);
      await client.query("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < $1", [before]);
      return removed.rowCount ?? 0;
    });
  }

  async copyEntries(tenant: TenantId, entries: readonly AuditEntry[]): Promise<number> {
    return inTransaction(this.#requirePool(), async (client) => {
      if (!(await tenantExists(client, tenant))) return 0;
      let written = 0;
      for (const { id, ...entry } of entries) {
        const inserted = await client.query(
          `INSERT INTO audit_log (id, tenant, at, action, outcome, "user", package, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (id) DO NOTHING`,
          [id, tenant, entry.at, entry.action, entry.outcome, entry.user, entry.package, JSON.stringify(entry)],
        );
        written += inserted.rowCount ?? 0;
      }
      // An id given explicitly does not move the sequence: later appends must come after the copied ones.
      await client.query(
        `SELECT setval(pg_get_serial_sequence('audit_log', 'id'), GREATEST((SELECT max(id) FROM audit_log), 1))`,
      );
      return written;
    });
  }

  async addWebhook(tenant: TenantId, hook: WebhookRecord): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      if (!(await tenantExists(client, tenant))) return false;
      await client.query('INSERT INTO webhooks (tenant, id, record) VALUES ($1, $2, $3)', [
        tenant,
        hook.id,
        JSON.stringify(hook),
      ]);
      return true;
    });
  }

  async listWebhooks(tenant: TenantId): Promise<WebhookRecord[]> {
    const { rows } = await this.#requirePool().query<{ record: string }>('SELECT record FROM webhooks WHERE tenant = $1', [
      tenant,
    ]);
    return rows.map((row) => JSON.parse(row.record) as WebhookRecord).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
  }

  async removeWebhook(tenant: TenantId, id: string): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      const removed = await client.query('DELETE FROM webhooks WHERE tenant = $1 AND id = $2', [tenant, id]);
      if (removed.rowCount === 0) return false;
      await client.query('DELETE FROM webhook_deliveries WHERE tenant = $1 AND hook = $2', [tenant, id]);
      return true;
    });
  }

  async setWebhookSecrets(tenant: TenantId, id: string, secrets: readonly WebhookSecret[]): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      const { rows } = await client.query<{ record: string }>(
        'SELECT record FROM webhooks WHERE tenant = $1 AND id = $2 FOR UPDATE',
        [tenant, id],
      );
      if (rows.length === 0) return false;
      const hook = { ...(JSON.parse(rows[0]!.record) as WebhookRecord), secrets: [...secrets] };
      await client.query('UPDATE webhooks SET record = $3 WHERE tenant = $1 AND id = $2', [tenant, id, JSON.stringify(hook)]);
      return true;
    });
  }

  async updateWebhook(tenant: TenantId, id: string, change: Pick<WebhookRecord, 'url' | 'events'>): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      const { rows } = await client.query<{ record: string }>(
        'SELECT record FROM webhooks WHERE tenant = $1 AND id = $2 FOR UPDATE',
        [tenant, id],
      );
      if (rows.length === 0) return false;
      const hook = { ...(JSON.parse(rows[0]!.record) as WebhookRecord), url: change.url, events: [...change.events] };
      await client.query('UPDATE webhooks SET record = $3 WHERE tenant = $1 AND id = $2', [tenant, id, JSON.stringify(hook)]);
      return true;
    });
  }

  async listDeliveries(tenant: TenantId, hook: string, limit: number): Promise<WebhookDelivery[]> {
    const { rows } = await this.#requirePool().query<{ record: string }>(
      'SELECT record FROM webhook_deliveries WHERE tenant = $1 AND hook = $2 ORDER BY created_at DESC, id DESC LIMIT $3',
      [tenant, hook, limit],
    );
    return rows.map((row) => JSON.parse(row.record) as WebhookDelivery);
  }

  async claimDeliveries(now: string, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const leaseUntil = isoAfter(now, leaseMs);
    return inTransaction(this.#requirePool(), async (client) => {
      // SKIP LOCKED: rows another node is claiming right now are left to it, not waited for.
      const { rows } = await client.query<{ id: string; tenant: string; record: string; hook: string }>(
        `SELECT d.id, d.tenant, d.record, w.record AS hook FROM webhook_deliveries d
         JOIN webhooks w ON w.tenant = d.tenant AND w.id = d.hook
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
         ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED`,
        [now, limit],
      );
      const claimed: ClaimedDelivery[] = [];
      for (const row of rows) {
        const hook = JSON.parse(row.hook) as WebhookRecord;
        const claim = randomUUID();
        await client.query('UPDATE webhook_deliveries SET claim = $1, lease_until = $2 WHERE id = $3', [
          claim,
          leaseUntil,
          row.id,
        ]);
        claimed.push({
          delivery: JSON.parse(row.record) as WebhookDelivery,
          tenant: row.tenant,
          url: hook.url,
          secrets: hook.secrets,
          claim,
        });
      }
      return claimed;
    });
  }

  async finishDelivery(id: string, claim: string, attempt: DeliveryAttempt): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      const { rows } = await client.query<{ record: string }>(
        'SELECT record FROM webhook_deliveries WHERE id = $1 AND claim = $2 FOR UPDATE',
        [id, claim],
      );
      if (rows.length === 0) return false;
      const delivery = attempted(JSON.parse(rows[0]!.record) as WebhookDelivery, attempt);
      await client.query(
        'UPDATE webhook_deliveries SET status = $2, next_attempt_at = $3, claim = NULL, lease_until = NULL, record = $4 WHERE id = $1',
        [id, delivery.status, delivery.nextAttemptAt, JSON.stringify(delivery)],
      );
      return true;
    });
  }

  async redeliver(tenant: TenantId, id: string, now: string, giveUpAt: string): Promise<boolean> {
    return inTransaction(this.#requirePool(), async (client) => {
      const { rows } = await client.query<{ record: string }>(
        'SELECT record FROM webhook_deliveries WHERE tenant = $1 AND id = $2 FOR UPDATE',
        [tenant, id],
      );
      if (rows.length === 0) return false;
      const delivery: WebhookDelivery = {
        ...(JSON.parse(rows[0]!.record) as WebhookDelivery),
        status: 'pending',
        nextAttemptAt: now,
        giveUpAt,
      };
      await client.query("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $2, record = $3 WHERE id = $1", [
        id,
        now,
        JSON.stringify(delivery),
      ]);
      return true;
    });
  }

  async putDelivery(tenant: TenantId, delivery: WebhookDelivery): Promise<boolean> {
    const result = await this.#requirePool().query(
      `INSERT INTO webhook_deliveries (id, tenant, hook, status, created_at, next_attempt_at, record)
       SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text
       WHERE EXISTS (SELECT 1 FROM webhooks WHERE tenant = $2 AND id = $3)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_at = excluded.created_at,
         next_attempt_at = excluded.next_attempt_at, lease_until = NULL, claim = NULL, record = excluded.record
       WHERE webhook_deliveries.tenant = excluded.tenant AND webhook_deliveries.hook = excluded.hook`,
      [delivery.id, tenant, delivery.hook, delivery.status, delivery.createdAt, delivery.nextAttemptAt, JSON.stringify(delivery)],
    );
    return (result.rowCount ?? 0) > 0;
  }

  #requirePool(): pg.Pool {
    if (!this.#pool) throw new Error('PostgresChangeLog is not attached to a pool');
    return this.#pool;
  }
}

/** Locks the tenant's row for the transaction: a tenant deleted meanwhile gets nothing written. */
async function tenantExists(client: pg.ClientBase, tenant: TenantId): Promise<boolean> {
  if (tenant === '') return true;
  return ((await client.query('SELECT 1 FROM tenants WHERE name = $1 FOR SHARE', [tenant])).rowCount ?? 0) > 0;
}
