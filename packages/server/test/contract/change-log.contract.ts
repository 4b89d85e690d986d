import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/create-storage.js';
import type {
  AuditEntry,
  AuditLogStore,
  NewWebhookDelivery,
  WebhookDelivery,
  WebhookRecord,
  WebhookStore,
} from '../../src/storage/ports.js';

/** A database for one test: `open` may be called twice (two nodes sharing it). */
export interface ChangeLogDatabase {
  open(): Promise<Pick<Storage, 'audit' | 'webhooks' | 'registry'>>;
  destroy(): Promise<void>;
}

const T0 = '2026-01-01T00:00:00.000Z';

function entry(fields: Partial<Omit<AuditEntry, 'id'>> = {}): Omit<AuditEntry, 'id'> {
  return {
    at: T0,
    action: 'package.publish',
    outcome: 'success',
    user: 'ann',
    tokenId: '0123456789abcdef',
    address: '127.0.0.1',
    via: 'http',
    package: 'com.acme.tool',
    target: 'com.acme.tool@1.0.0',
    reason: null,
    details: { version: '1.0.0' },
    ...fields,
  };
}

function hook(id: string, url = `http://127.0.0.1:9/${id}`): WebhookRecord {
  return {
    id,
    url,
    events: ['package'],
    secrets: [{ secret: `secret-of-${id}-0123456789`, createdAt: T0, expiresAt: null }],
    createdAt: T0,
    createdBy: 'ann',
  };
}

function delivery(id: string, hookId: string, at = T0): NewWebhookDelivery {
  return {
    id,
    hook: hookId,
    event: 'package.publish',
    payload: `{"delivery":"${id}"}`,
    createdAt: at,
    giveUpAt: '2026-01-02T00:00:00.000Z',
  };
}

/** A delivery as another store lists it, never attempted. */
function pendingCopy(id: string, hookId: string, at = T0): WebhookDelivery {
  return {
    ...delivery(id, hookId, at),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: at,
    lastAttemptAt: null,
    lastStatus: null,
    lastError: null,
  };
}

/** Every driver of the audit log and the webhook outbox runs this suite on a fresh database. */
export function changeLogContract(driver: string, freshDatabase: () => Promise<ChangeLogDatabase>): void {
  describe(`AuditLogStore and WebhookStore contract: ${driver}`, () => {
    let database: ChangeLogDatabase;
    let audit: AuditLogStore;
    let webhooks: WebhookStore;

    beforeEach(async () => {
      database = await freshDatabase();
      ({ audit, webhooks } = await database.open());
    });
    afterEach(async () => {
      await database.destroy();
    });

    it('appends entries with increasing ids and answers newest first, filtered and paged', async () => {
      await audit.append('', entry(), []);
      await audit.append(
        '',
        entry({ at: '2026-01-02T00:00:00.000Z', action: 'owner.add', user: 'bob', package: 'com.acme.other' }),
        [],
      );
      await audit.append(
        '',
        entry({
          at: '2026-01-03T00:00:00.000Z',
          action: 'token.create',
          outcome: 'refused',
          reason: 'wrong password',
          package: null,
        }),
        [],
      );
      const all = await audit.query('', { limit: 10 });
      expect(all.map((e) => e.action)).toEqual(['token.create', 'owner.add', 'package.publish']);
      expect(Number(all[0]!.id)).toBeGreaterThan(Number(all[1]!.id));
      expect(all[2]).toEqual({ ...entry(), id: all[2]!.id });

      expect((await audit.query('', { limit: 10, user: 'bob' })).map((e) => e.action)).toEqual(['owner.add']);
      expect((await audit.query('', { limit: 10, package: 'com.acme.tool' })).map((e) => e.action)).toEqual(['package.publish']);
      expect((await audit.query('', { limit: 10, action: 'owner' })).map((e) => e.action)).toEqual(['owner.add']);
      expect((await audit.query('', { limit: 10, action: 'own' })).map((e) => e.action)).toEqual([]);
      expect((await audit.query('', { limit: 10, outcome: 'refused' })).map((e) => e.reason)).toEqual(['wrong password']);
      const window = await audit.query('', { limit: 10, since: '2026-01-02T00:00:00.000Z', until: '2026-01-02T23:59:59.999Z' });
      expect(window.map((e) => e.action)).toEqual(['owner.add']);
      const first = await audit.query('', { limit: 2 });
      expect(first).toHaveLength(2);
      expect((await audit.query('', { limit: 2, before: first[1]!.id })).map((e) => e.action)).toEqual(['package.publish']);
    });

    it('keeps registries apart, writes nothing for a tenant that does not exist, and forgets a deleted one', async () => {
      const { registry } = await database.open();
      await registry.tenants.create({ name: 'acme', incarnation: 'first', createdAt: T0, settings: {} });
      await audit.append('acme', entry({ user: 'acme-user' }), [delivery('d-acme', 'h-acme')]);
      expect(await webhooks.addWebhook('acme', hook('h-acme'))).toBe(true);
      await audit.append('', entry(), []);
      await audit.append('ghost', entry(), []);
      expect(await webhooks.addWebhook('ghost', hook('h-ghost'))).toBe(false);
      expect((await audit.query('acme', { limit: 10 })).map((e) => e.user)).toEqual(['acme-user']);
      expect((await audit.query('', { limit: 10 })).map((e) => e.user)).toEqual(['ann']);
      expect(await audit.query('ghost', { limit: 10 })).toEqual([]);
      expect(await webhooks.listWebhooks('')).toEqual([]);

      await registry.tenants.delete('acme');
      expect(await audit.query('acme', { limit: 10 })).toEqual([]);
      expect(await webhooks.listWebhooks('acme')).toEqual([]);
      expect(await webhooks.claimDeliveries('2026-02-01T00:00:00.000Z', 60_000, 10)).toEqual([]);
    });

    it('prunes entries and finished deliveries older than the cut-off, in every registry', async () => {
      await webhooks.addWebhook('', hook('h1'));
      await audit.append('', entry({ at: '2025-01-01T00:00:00.000Z' }), [delivery('old', 'h1', '2025-01-01T00:00:00.000Z')]);
      await audit.append('', entry({ at: '2025-01-02T00:00:00.000Z' }), [
        delivery('old-pending', 'h1', '2025-01-02T00:00:00.000Z'),
      ]);
      await audit.append('', entry(), []);
      const [claimed] = await webhooks.claimDeliveries('2025-01-01T00:00:00.000Z', 60_000, 1);
      expect(claimed!.delivery.id).toBe('old');
      await webhooks.finishDelivery('old', claimed!.claim, {
        at: T0,
        status: 'delivered',
        nextAttemptAt: T0,
        lastStatus: 204,
        lastError: null,
      });
      expect(await audit.prune('2025-06-01T00:00:00.000Z')).toBe(2);
      expect((await audit.query('', { limit: 10 })).map((e) => e.at)).toEqual([T0]);
      expect((await webhooks.listDeliveries('', 'h1', 10)).map((d) => d.id)).toEqual(['old-pending']);
    });

    it('copies entries as they were, ids and times kept, skipping ids it has; later appends come after them', async () => {
      const { registry } = await database.open();
      await registry.tenants.create({ name: 'acme', incarnation: 'first', createdAt: T0, settings: {} });
      const copied: AuditEntry[] = [
        { ...entry({ at: '2025-05-01T00:00:00.000Z', action: 'owner.add' }), id: '40' },
        { ...entry({ at: '2025-04-01T00:00:00.000Z', user: null, tokenId: null }), id: '7' },
      ];
      expect(await audit.copyEntries('acme', copied)).toBe(2);
      // A re-run, with one newer entry: only that one is written.
      const newer: AuditEntry = { ...entry({ at: '2025-06-01T00:00:00.000Z', action: 'token.revoke' }), id: '41' };
      expect(await audit.copyEntries('acme', [newer, ...copied])).toBe(1);
      expect(await audit.query('acme', { limit: 10 })).toEqual([newer, ...copied]);
      expect(await audit.query('acme', { limit: 10, before: '40' })).toEqual([copied[1]]);
      expect(await audit.query('', { limit: 10 })).toEqual([]);

      await audit.append('acme', entry({ action: 'package.unpublish' }), []);
      const [appended] = await audit.query('acme', { limit: 1 });
      expect(appended!.action).toBe('package.unpublish');
      expect(Number(appended!.id)).toBeGreaterThan(41);
      expect(await audit.copyEntries('ghost', [{ ...entry(), id: '99' }])).toBe(0);
      expect(await audit.query('ghost', { limit: 10 })).toEqual([]);
    });

    it('puts a delivery as it was, unclaimed, replacing the one of its id; none for a hook the registry lacks', async () => {
      await webhooks.addWebhook('', hook('h1'));
      await audit.append('', entry(), [delivery('d1', 'h1')]);
      const [claimed] = await webhooks.claimDeliveries(T0, 60_000, 10);
      expect(claimed!.delivery.id).toBe('d1');
      const failing = {
        ...pendingCopy('d1', 'h1'),
        attempts: 3,
        nextAttemptAt: '2026-01-01T00:10:00.000Z',
        lastAttemptAt: '2026-01-01T00:05:00.000Z',
        lastStatus: 503,
        lastError: 'the receiver answered HTTP 503',
      };
      // Replaced with the claim dropped: it is due again at its own time, and the old claim no longer holds.
      expect(await webhooks.putDelivery('', failing)).toBe(true);
      expect(await webhooks.listDeliveries('', 'h1', 10)).toEqual([failing]);
      const [again] = await webhooks.claimDeliveries('2026-01-01T00:10:00.000Z', 60_000, 10);
      expect(again!.delivery).toEqual(failing);
      expect(
        await webhooks.finishDelivery('d1', claimed!.claim, {
          at: T0,
          status: 'delivered',
          nextAttemptAt: T0,
          lastStatus: 200,
          lastError: null,
        }),
      ).toBe(false);

      const delivered = {
        ...pendingCopy('d2', 'h1', '2026-01-01T00:00:01.000Z'),
        status: 'delivered' as const,
        attempts: 1,
        lastAttemptAt: '2026-01-01T00:00:02.000Z',
        lastStatus: 204,
      };
      expect(await webhooks.putDelivery('', delivered)).toBe(true);
      expect(await webhooks.listDeliveries('', 'h1', 10)).toEqual([delivered, failing]);
      // The delivered one is never sent; the pending one again once its lease ends.
      const later = await webhooks.claimDeliveries('2026-01-02T00:00:00.000Z', 60_000, 10);
      expect(later.map((c) => c.delivery.id)).toEqual(['d1']);
      expect(await webhooks.putDelivery('', pendingCopy('d3', 'nope'))).toBe(false);
      expect(await webhooks.putDelivery('ghost', pendingCopy('d4', 'h1'))).toBe(false);
      expect(await webhooks.listDeliveries('', 'nope', 10)).toEqual([]);
    });

    it('manages hooks: add, list, replace secrets, remove with their deliveries', async () => {
      await webhooks.addWebhook('', hook('h1'));
      await webhooks.addWebhook('', { ...hook('h2'), createdAt: '2026-01-01T00:00:01.000Z' });
      expect((await webhooks.listWebhooks('')).map((h) => h.id)).toEqual(['h1', 'h2']);
      const secrets = [
        { secret: 'new-secret-0123456789', createdAt: T0, expiresAt: null },
        { secret: 'old-secret-0123456789', createdAt: T0, expiresAt: '2026-01-02T00:00:00.000Z' },
      ];
      expect(await webhooks.setWebhookSecrets('', 'h1', secrets)).toBe(true);
      expect(await webhooks.setWebhookSecrets('', 'nope', secrets)).toBe(false);
      expect((await webhooks.listWebhooks(''))[0]!.secrets).toEqual(secrets);
      await audit.append('', entry(), [delivery('d1', 'h1'), delivery('d2', 'h2')]);
      expect(await webhooks.removeWebhook('', 'h1')).toBe(true);
      expect(await webhooks.removeWebhook('', 'h1')).toBe(false);
      expect(await webhooks.listDeliveries('', 'h1', 10)).toEqual([]);
      expect((await webhooks.listDeliveries('', 'h2', 10)).map((d) => d.id)).toEqual(['d2']);
    });

    it("changes a hook's URL and events, secrets kept; a pending delivery is claimed for the new URL", async () => {
      await webhooks.addWebhook('', hook('h1'));
      const before = (await webhooks.listWebhooks(''))[0]!;
      await audit.append('', entry(), [delivery('d1', 'h1')]);
      expect(await webhooks.updateWebhook('', 'h1', { url: 'https://new.example.com/in', events: ['advisory'] })).toBe(true);
      expect(await webhooks.updateWebhook('', 'nope', { url: 'https://new.example.com/in', events: ['*'] })).toBe(false);
      expect(await webhooks.updateWebhook('ghost', 'h1', { url: 'https://new.example.com/in', events: ['*'] })).toBe(false);
      const [after] = await webhooks.listWebhooks('');
      expect(after).toEqual({ ...before, url: 'https://new.example.com/in', events: ['advisory'] });
      const [claimed] = await webhooks.claimDeliveries(T0, 60_000, 10);
      expect(claimed).toMatchObject({ delivery: { id: 'd1' }, url: 'https://new.example.com/in' });
    });

    it('claims each due delivery once across two nodes, until its lease ends unfinished', async () => {
      const other = (await database.open()).webhooks;
      await webhooks.addWebhook('', hook('h1'));
      await audit.append('', entry(), [
        delivery('d1', 'h1'),
        delivery('d2', 'h1'),
        delivery('later', 'h1', '2026-01-01T01:00:00.000Z'),
      ]);
      const [a, b] = await Promise.all([webhooks.claimDeliveries(T0, 60_000, 10), other.claimDeliveries(T0, 60_000, 10)]);
      const ids = [...a, ...b].map((c) => c.delivery.id).sort();
      expect(ids).toEqual(['d1', 'd2']);
      const claimed = [...a, ...b].find((c) => c.delivery.id === 'd1')!;
      expect(claimed).toMatchObject({
        tenant: '',
        url: 'http://127.0.0.1:9/h1',
        delivery: { status: 'pending', attempts: 0, payload: '{"delivery":"d1"}' },
      });
      expect(claimed.secrets).toEqual(hook('h1').secrets);

      // Within the lease nobody claims them again; after it (the holder died), somebody does.
      expect(await other.claimDeliveries('2026-01-01T00:00:30.000Z', 60_000, 10)).toEqual([]);
      const again = await other.claimDeliveries('2026-01-01T00:01:00.000Z', 60_000, 10);
      expect(again.map((c) => c.delivery.id).sort()).toEqual(['d1', 'd2']);
      // The first claim no longer holds: its late result is not written.
      expect(
        await webhooks.finishDelivery('d1', claimed.claim, {
          at: T0,
          status: 'delivered',
          nextAttemptAt: T0,
          lastStatus: 200,
          lastError: null,
        }),
      ).toBe(false);
    });

    it('records attempts: a retry comes due later, a success or give-up ends it, redeliver starts it again', async () => {
      await webhooks.addWebhook('', hook('h1'));
      await audit.append('', entry(), [delivery('d1', 'h1')]);
      let [claim] = await webhooks.claimDeliveries(T0, 60_000, 10);
      const retryAt = '2026-01-01T00:00:30.000Z';
      expect(
        await webhooks.finishDelivery('d1', claim!.claim, {
          at: T0,
          status: 'pending',
          nextAttemptAt: retryAt,
          lastStatus: 500,
          lastError: 'HTTP 500',
        }),
      ).toBe(true);
      expect(await webhooks.claimDeliveries('2026-01-01T00:00:10.000Z', 60_000, 10)).toEqual([]);
      [claim] = await webhooks.claimDeliveries(retryAt, 60_000, 10);
      expect(claim!.delivery).toMatchObject({ attempts: 1, lastStatus: 500, lastError: 'HTTP 500', lastAttemptAt: T0 });
      await webhooks.finishDelivery('d1', claim!.claim, {
        at: retryAt,
        status: 'delivered',
        nextAttemptAt: retryAt,
        lastStatus: 204,
        lastError: null,
      });
      expect(await webhooks.claimDeliveries('2026-01-03T00:00:00.000Z', 60_000, 10)).toEqual([]);
      expect(await webhooks.listDeliveries('', 'h1', 10)).toEqual([
        expect.objectContaining({
          id: 'd1',
          status: 'delivered',
          attempts: 2,
          lastStatus: 204,
          lastError: null,
          lastAttemptAt: retryAt,
        }),
      ]);

      expect(await webhooks.redeliver('', 'nope', T0, T0)).toBe(false);
      expect(await webhooks.redeliver('', 'd1', '2026-01-05T00:00:00.000Z', '2026-01-06T00:00:00.000Z')).toBe(true);
      [claim] = await webhooks.claimDeliveries('2026-01-05T00:00:00.000Z', 60_000, 10);
      expect(claim!.delivery).toMatchObject({ id: 'd1', status: 'pending', giveUpAt: '2026-01-06T00:00:00.000Z' });
    });
  });
}
