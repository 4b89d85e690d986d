import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, startRegistry, type TestRegistry } from '@pkg/testkit';
import { loadAssets } from '../../src/web/assets.js';
import { auditPage } from '../../src/web/pages/audit-page.js';
import { webhooksPage } from '../../src/web/pages/webhooks-page.js';
import type { AuditEntry } from '../../src/storage/ports.js';
import { WebClient, squash } from './web-client.js';

let registry: TestRegistry;

beforeAll(async () => {
  registry = await startRegistry();
  await loginUser(registry.url, 'alice', 'pw-alice');
});
afterAll(async () => {
  await registry.close();
});

describe('the audit log and webhooks pages (/-/web/audit, /-/web/webhooks)', () => {
  it('sends signed-out visitors to the sign-in form', async () => {
    const page = await new WebClient(registry.url).get('/-/web/audit');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/-/web/signin?next=%2F-%2Fweb%2Faudit');
  });

  it('answers 403 saying who may read it to a user who does not administer the registry', async () => {
    const client = new WebClient(registry.url);
    await client.get('/-/web/signin');
    expect((await client.post('/-/web/signin', { csrf: client.csrf(), name: 'alice', password: 'pw-alice' })).status).toBe(303);
    const page = await client.get('/-/web/audit');
    expect(page.status).toBe(403);
    expect(squash(page.html)).toContain('Only an administrator of this registry may read its audit log');
    expect(page.html).not.toContain('<table');
    const hooks = await client.get('/-/web/webhooks');
    expect(hooks.status).toBe(403);
    expect(squash(hooks.html)).toContain('Only an administrator of this registry may manage its webhooks');
  });

  it('shows entries with who, from where, on what and why, and a link to older ones', async () => {
    const entry: AuditEntry = {
      id: '7',
      at: '2026-11-27T10:00:00.000Z',
      action: 'dist-tag.set',
      outcome: 'refused',
      user: 'bob',
      tokenId: '0123456789abcdef',
      address: '203.0.113.7',
      via: 'http',
      package: 'com.acme.tool',
      target: 'com.acme.tool tag latest',
      reason: 'Only the maintainers of com.acme.tool may change it <script>',
      details: { status: 403 },
    };
    const ctx = { assets: await loadAssets(), tenant: '', host: 'registry.test', viewer: 'admin', csrf: 'x' };
    const html = auditPage(ctx, { entries: [entry], filters: { user: 'bob' }, next: '7' });
    const text = squash(html);
    for (const shown of ['dist-tag.set', 'refused', 'bob (token 0123456789abcdef)', '203.0.113.7', 'com.acme.tool tag latest']) {
      expect(text).toContain(shown);
    }
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('value="bob"');
    expect(html).toContain('href="/-/web/audit?user=bob&amp;before=7"');
  });

  it('ties refused filters to every filter field, above the form, and keeps what was written', async () => {
    await loginUser(registry.url, 'admin', 'pw-admin');
    await registry.storage.registry.users.update('', 'admin', { admin: true });
    const client = new WebClient(registry.url);
    await client.get('/-/web/signin');
    expect((await client.post('/-/web/signin', { csrf: client.csrf(), name: 'admin', password: 'pw-admin' })).status).toBe(303);
    const input = (html: string, name: string) => new RegExp(`<input id="audit-${name}"[^>]*>`).exec(html)?.[0] ?? '';
    const FILTERS = ['user', 'package', 'action', 'outcome', 'since', 'until'];

    const fresh = await client.get('/-/web/audit?user=admin');
    expect(fresh.status).toBe(200);
    const freshHtml = squash(fresh.html);
    for (const name of FILTERS) {
      expect(input(freshHtml, name), name).toContain(' type="text"');
      expect(input(freshHtml, name), name).not.toContain('aria-invalid');
    }
    expect(input(freshHtml, 'user')).toContain('value="admin"');
    expect(freshHtml).not.toContain('id="audit-error"');

    const refused = await client.get('/-/web/audit?user=bob&since=yesterday');
    expect(refused.status).toBe(422);
    const html = squash(refused.html);
    expect(html).toMatch(
      /<div id="audit-error" class="error" role="alert">&#39;since&#39; must be a day[^<]*<\/div><form method="get"/,
    );
    for (const name of FILTERS) {
      expect(input(html, name), name).toMatch(/ aria-invalid="true" aria-describedby="(audit-[a-z]+-hint )?audit-error"/);
    }
    expect(input(html, 'since')).toContain('aria-describedby="audit-since-hint audit-error"');
    expect(input(html, 'user')).toContain('value="bob"');
    expect(input(html, 'since')).toContain('value="yesterday"');
  });

  it('lists webhooks with their latest deliveries, never a secret', async () => {
    const ctx = { assets: await loadAssets(), tenant: '', host: 'registry.test', viewer: 'admin', csrf: 'x' };
    const hook = {
      id: 'abc123',
      url: 'https://ci.example.com/hook',
      events: ['package'],
      createdAt: '2026-11-27T09:00:00.000Z',
      createdBy: 'operator root',
      signingSecrets: 2,
    };
    const delivery = {
      id: 'd-1',
      hook: 'abc123',
      event: 'package.publish',
      payload: '{}',
      createdAt: '2026-11-27T10:00:00.000Z',
      giveUpAt: '2026-11-28T10:00:00.000Z',
      status: 'pending' as const,
      attempts: 3,
      nextAttemptAt: '2026-11-27T10:04:00.000Z',
      lastAttemptAt: '2026-11-27T10:02:00.000Z',
      lastStatus: 500,
      lastError: 'the receiver answered HTTP 500',
    };
    const text = squash(webhooksPage(ctx, { hooks: [{ hook, deliveries: [delivery] }] }));
    for (const shown of [
      'https://ci.example.com/hook',
      'abc123',
      'package',
      '2 secrets sign (a rotation is under way)',
      'd-1',
      'package.publish',
      'pending',
      'the receiver answered HTTP 500',
    ]) {
      expect(text).toContain(shown);
    }
    expect(squash(webhooksPage(ctx, { hooks: [] }))).toContain('No webhooks.');
  });
});
