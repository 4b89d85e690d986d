import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
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
import { AttachedDatabase } from './attached-database.js';
import type { SqliteMigration, SqlitePackageWriteHook } from './sqlite-metadata-store.js';

type Db = Database.Database;

export const CHANGE_LOG_MIGRATIONS: readonly SqliteMigration[] = [
  `
  CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant TEXT NOT NULL,
    at TEXT NOT NULL,
    action TEXT NOT NULL,
    outcome TEXT NOT NULL,
    user TEXT,
    package TEXT,
    record TEXT NOT NULL
  );
  CREATE INDEX audit_log_by_tenant ON audit_log (tenant, id);
  CREATE INDEX audit_log_by_time ON audit_log (at);
  CREATE TABLE webhooks (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
  ) WITHOUT ROWID;
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    hook TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    lease_until TEXT,
    claim TEXT,
    record TEXT NOT NULL
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
  CREATE INDEX webhook_deliveries_of_hook ON webhook_deliveries (tenant, hook, created_at);
  `,
];

const TENANT_EXISTS = `(? = '' OR EXISTS (SELECT 1 FROM tenants WHERE name = ?))`;

/**
 * The audit log, webhooks and their outbox in the SQLite database. An entry and the deliveries
 * it causes are written in one transaction; a delivery is claimed in an IMMEDIATE transaction,
 * so two processes on one file never claim the same one.
 */
export class SqliteChangeLog implements AuditLogStore, WebhookStore {
  readonly #db = new AttachedDatabase('SqliteChangeLog');

  readonly writeHook: SqlitePackageWriteHook = {
    name: 'change-log',
    migrations: CHANGE_LOG_MIGRATIONS,
    onWrite: () => undefined,
    onTenantDelete: (db: Db, tenant: TenantId) => {
      for (const table of ['audit_log', 'webhooks', 'webhook_deliveries']) {
        db.prepare(`DELETE FROM ${table} WHERE tenant = ?`).run(tenant);
      }
    },
  };

  attach(db: Db): void {
    this.#db.attach(db);
  }

  async append(tenant: TenantId, entry: Omit<AuditEntry, 'id'>, deliveries: readonly NewWebhookDelivery[]): Promise<void> {
    const db = this.#db.require();
    db.transaction(() => {
      const inserted = this.#db
        .statement(
          `INSERT INTO audit_log (tenant, at, action, outcome, user, package, record)
           SELECT ?, ?, ?, ?, ?, ?, ? WHERE ${TENANT_EXISTS}`,
        )
        .run(tenant, entry.at, entry.action, entry.outcome, entry.user, entry.package, JSON.stringify(entry), tenant, tenant);
      if (inserted.changes === 0) return;
      const insertDelivery = this.#db.statement(
        `INSERT INTO webhook_deliveries (id, tenant, hook, status, created_at, next_attempt_at, record)
         VALUES (?, ?, ?, 'pending', ?, ?, ?)`,
      );
      for (const d of deliveries) {
        insertDelivery.run(d.id, tenant, d.hook, d.createdAt, d.createdAt, JSON.stringify(pendingDelivery(d)));
      }
    }).immediate();
  }

  async query(tenant: TenantId, query: AuditQuery): Promise<AuditEntry[]> {
    const where = ['tenant = ?'];
    const args: unknown[] = [tenant];
    const add = (condition: string, ...values: unknown[]) => {
      where.push(condition);
      args.push(...values);
    };
    if (query.before !== undefined) add('id < ?', Number(query.before));
    if (query.user !== undefined) add('user = ?', query.user);
    if (query.package !== undefined) add('package = ?', query.package);
    if (query.action !== undefined)
      add("(action = ? OR substr(action, 1, ?) = ? || '.')", query.action, query.action.length + 1, query.action);
    if (query.outcome !== undefined) add('outcome = ?', query.outcome);
    if (query.since !== undefined) add('at >= ?', query.since);
    if (query.until !== undefined) add('at <= ?', query.until);
    const rows = this.#db
      .require()
      .prepare(`SELECT id, record FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`)
      .all(...args, query.limit) as { id: number; record: string }[];
    return rows.map((row) => ({ ...(JSON.parse(row.record) as Omit<AuditEntry, 'id'>), id: String(row.id) }));
  }

  async prune(before: string): Promise<number> {
    const db = this.#db.require();
    return db
      .transaction(() => {
        const removed = db.prepare('DELETE FROM audit_log WHERE at < ?').run(before).changes;
        db.prepare("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ?").run(before);
        return removed;
      })
      .immediate();
  }

  async copyEntries(tenant: TenantId, entries: readonly AuditEntry[]): Promise<number> {
    const db = this.#db.require();
    return db
      .transaction(() => {
        if (tenant !== '' && !this.#db.statement('SELECT 1 FROM tenants WHERE name = ?').get(tenant)) return 0;
        // AUTOINCREMENT remembers the largest id written, so later appends come after the copied ones.
        const insert = this.#db.statement(
          `INSERT INTO audit_log (id, tenant, at, action, outcome, user, package, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (id) DO NOTHING`,
        );
        let written = 0;
        for (const { id, ...entry } of entries) {
          written += insert.run(
            Number(id),
            tenant,
            entry.at,
            entry.action,
            entry.outcome,
            entry.user,
            entry.package,
            JSON.stringify(entry),
          ).changes;
        }
        return written;
      })
      .immediate();
  }

  async addWebhook(tenant: TenantId, hook: WebhookRecord): Promise<boolean> {
    const result = this.#db
      .statement(`INSERT INTO webhooks (tenant, id, record) SELECT ?, ?, ? WHERE ${TENANT_EXISTS}`)
      .run(tenant, hook.id, JSON.stringify(hook), tenant, tenant);
    return result.changes > 0;
  }

  async listWebhooks(tenant: TenantId): Promise<WebhookRecord[]> {
    const rows = this.#db.statement('SELECT record FROM webhooks WHERE tenant = ?').all(tenant) as { record: string }[];
    return rows.map((row) => JSON.parse(row.record) as WebhookRecord).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
  }

  async removeWebhook(tenant: TenantId, id: string): Promise<boolean> {
    const db = this.#db.require();
    return db
      .transaction(() => {
        const removed = this.#db.statement('DELETE FROM webhooks WHERE tenant = ? AND id = ?').run(tenant, id).changes > 0;
        if (removed) this.#db.statement('DELETE FROM webhook_deliveries WHERE tenant = ? AND hook = ?').run(tenant, id);
        return removed;
      })
      .immediate();
  }

  async setWebhookSecrets(tenant: TenantId, id: string, secrets: readonly WebhookSecret[]): Promise<boolean> {
    const db = this.#db.require();
    return db
      .transaction(() => {
        const row = this.#db.statement('SELECT record FROM webhooks WHERE tenant = ? AND id = ?').get(tenant, id) as
          { record: string } | undefined;
        if (!row) return false;
        const hook = { ...(JSON.parse(row.record) as WebhookRecord), secrets: [...secrets] };
        this.#db.statement('UPDATE webhooks SET record = ? WHERE tenant = ? AND id = ?').run(JSON.stringify(hook), tenant, id);
        return true;
      })
      .immediate();
  }

  async updateWebhook(tenant: TenantId, id: string, change: Pick<WebhookRecord, 'url' | 'events'>): Promise<boolean> {
    const db = this.#db.require();
    return db
      .transaction(() => {
        const row = this.#db.statement('SELECT record FROM webhooks WHERE tenant = ? AND id = ?').get(tenant, id) as
          { record: string } | undefined;
        if (!row) return false;
        const hook = { ...(JSON.parse(row.record) as WebhookRecord), url: change.url, events: [...change.events] };
        this.#db.statement('UPDATE webhooks SET record = ? WHERE tenant = ? AND id = ?').run(JSON.stringify(hook), tenant, id);
        return true;
      })
      .immediate();
  }

  async listDeliveries(tenant: TenantId, hook: string, limit: number): Promise<WebhookDelivery[]> {
    const rows = this.#db
      .statement('SELECT record FROM webhook_deliveries WHERE tenant = ? AND hook = ? ORDER BY created_at DESC, id DESC LIMIT ?')
      .all(tenant, hook, limit) as { record: string }[];
    return rows.map((row) => JSON.parse(row.record) as WebhookDelivery);
  }

  async claimDeliveries(now: string, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const db = this.#db.require();
    const leaseUntil = isoAfter(now, leaseMs);
    return db
      .transaction(() => {
        const rows = this.#db
          .statement(
            `SELECT d.id, d.tenant, d.record, w.record AS hook FROM webhook_deliveries d
           JOIN webhooks w ON w.tenant = d.tenant AND w.id = d.hook
           WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
           ORDER BY d.next_attempt_at LIMIT ?`,
          )
          .all(now, now, limit) as { id: string; tenant: string; record: string; hook: string }[];
        const claim = this.#db.statement('UPDATE webhook_deliveries SET claim = ?, lease_until = ? WHERE id = ?');
        return rows.map((row) => {
          const hook = JSON.parse(row.hook) as WebhookRecord;
          const token = randomUUID();
          claim.run(token, leaseUntil, row.id);
          return {
            delivery: JSON.parse(row.record) as WebhookDelivery,
            tenant: row.tenant,
            url: hook.url,
            secrets: hook.secrets,
            claim: token,
          };
        });
      })
      .immediate();
  }

  async finishDelivery(id: string, claim: string, attempt: DeliveryAttempt): Promise<boolean> {
    const db = this.#db.require();
    return db
      .transaction(() => {
        const row = this.#db.statement('SELECT record FROM webhook_deliveries WHERE id = ? AND claim = ?').get(id, claim) as
          { record: string } | undefined;
        if (!row) return false;
        const delivery = attempted(JSON.parse(row.record) as WebhookDelivery, attempt);
        this.#db
          .statement(
            'UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, claim = NULL, lease_until = NULL, record = ? WHERE id = ?',
          )
          .run(delivery.status, delivery.nextAttemptAt, JSON.stringify(delivery), id);
        return true;
      })
      .immediate();
  }

  async redeliver(tenant: TenantId, id: string, now: string, giveUpAt: string): Promise<boolean> {
    const db = this.#db.require();
    return db
      .transaction(() => {
        const row = this.#db.statement('SELECT record FROM webhook_deliveries WHERE tenant = ? AND id = ?').get(tenant, id) as
          { record: string } | undefined;
        if (!row) return false;
        const delivery: WebhookDelivery = {
          ...(JSON.parse(row.record) as WebhookDelivery),
          status: 'pending',
          nextAttemptAt: now,
          giveUpAt,
        };
        this.#db
          .statement("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, record = ? WHERE id = ?")
          .run(now, JSON.stringify(delivery), id);
        return true;
      })
      .immediate();
  }

  async putDelivery(tenant: TenantId, delivery: WebhookDelivery): Promise<boolean> {
    const result = this.#db
      .statement(
        `INSERT INTO webhook_deliveries (id, tenant, hook, status, created_at, next_attempt_at, record)
         SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhooks WHERE tenant = ? AND id = ?)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_at = excluded.created_at,
           next_attempt_at = excluded.next_attempt_at, lease_until = NULL, claim = NULL, record = excluded.record
         WHERE webhook_deliveries.tenant = excluded.tenant AND webhook_deliveries.hook = excluded.hook`,
      )
      .run(
        delivery.id,
        tenant,
        delivery.hook,
        delivery.status,
        delivery.createdAt,
        delivery.nextAttemptAt,
        JSON.stringify(delivery),
        tenant,
        delivery.hook,
      );
    return result.changes > 0;
  }
}
