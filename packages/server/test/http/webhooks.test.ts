import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { webhookCommand } from '../../src/admin/webhook-command.js';
import type { AdminIo } from '../../src/admin/admin-io.js';
import { verifySignature } from '../../src/services/webhook-signature.js';

/** A webhook receiver on 127.0.0.1: records what arrives; can be down, failing, or redirecting. */
class Receiver {
  readonly received: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  answer = 204;
  #server: Server | undefined;
  port = 0;

  async up(): Promise<void> {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.received.push({ url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (this.answer === 307) response.writeHead(307, { location: `http://127.0.0.1:${this.port}/elsewhere` });
        else response.writeHead(this.answer);
        response.end();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
  }

  /** Stops listening: the next delivery finds the connection refused. */
  async down(): Promise<void> {
    await new Promise((resolve) => this.#server?.close(resolve));
    this.#server?.closeAllConnections();
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }
}

let clock: number;
const now = () => new Date(clock);
const HOUR = 3_600_000;
let receiver: Receiver;
let dataDir: string;
const started: TestRegistry[] = [];

beforeEach(async () => {
  clock = Date.now();
  receiver = new Receiver();
  await receiver.up();
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-webhooks-'));
});
afterEach(async () => {
  for (const node of started.splice(0)) await node.close();
  await receiver.down();
  await rm(dataDir, { recursive: true, force: true });
});

/** A node of the registry on the test's data directory (and, on scale-out, its shared backing). */
async function node(): Promise<TestRegistry> {
  const registry = await startRegistry({ dataDir, now });
  started.push(registry);
  return registry;
}

/**
 * The node the single-node tests share (a scale-out backing per test would cost seconds each);
 * each test's hooks are removed after it, so no test sees another's deliveries.
 */
let shared: TestRegistry | undefined;
async function sharedNode(): Promise<TestRegistry> {
  shared ??= await startRegistry({ now });
  return shared;
}
afterEach(async () => {
  if (!shared) return;
  for (const hook of await shared.storage.webhooks.listWebhooks('')) await shared.storage.webhooks.removeWebhook('', hook.id);
});
afterAll(async () => {
  await shared?.close();
});

/** `pkg-registry webhook …` in-process, on the registry's storage. */
async function webhook(registry: TestRegistry, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: AdminIo = {
    stdout: { write: (text) => void (stdout += text) },
    stderr: { write: (text) => void (stderr += text) },
    env: { PKG_REGISTRY_DATABASE: registry.config.database, PKG_REGISTRY_STORAGE: registry.config.storage },
    readStdin: async () => '',
  };
  const code = await webhookCommand([...args, '--data', registry.dataDir], io);
  return { code, stdout, stderr };
}

async function addHook(registry: TestRegistry, events = 'package.publish'): Promise<{ id: string; secret: string }> {
  const added = await webhook(registry, ['add', receiver.url, '--events', events, '--json']);
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  return JSON.parse(added.stdout) as { id: string; secret: string };
}

async function deliveries(registry: TestRegistry, id: string): Promise<Record<string, unknown>[]> {
  const listed = await webhook(registry, ['deliveries', id, '--json']);
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.stdout) as { deliveries: Record<string, unknown>[] }).deliveries;
}

describe('webhooks', () => {
  it('a publish is POSTed to the hook, signed with HMAC-SHA256 of the raw body, and logged as delivered', async () => {
    const registry = await sharedNode();
    const hook = await addHook(registry);
    const token = await loginUser(registry.url, 'alice');
    expect((await publishVersion(registry.url, token, 'com.acme.hooked', '1.0.0')).status).toBe(201);
    await registry.services.webhookDispatcher.settled();

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.url).toBe('/hook');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-pkg-event']).toBe('package.publish');
    const signature = String(request!.headers['x-pkg-signature-256']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(request!.body, signature, hook.secret)).toBe(true);
    expect(verifySignature(request!.body, signature, 'another-secret-0123456789')).toBe(false);
    expect(verifySignature(`${request!.body} `, signature, hook.secret)).toBe(false);
    expect(JSON.parse(request!.body)).toEqual({
      event: 'package.publish',
      delivery: request!.headers['x-pkg-delivery'],
      registry: null,
      at: now().toISOString(),
      package: 'com.acme.hooked',
      target: 'com.acme.hooked@1.0.0',
      user: 'alice',
      details: { version: '1.0.0' },
    });
    expect(await deliveries(registry, hook.id)).toEqual([
      expect.objectContaining({
        id: request!.headers['x-pkg-delivery'],
        status: 'delivered',
        attempts: 1,
        lastStatus: 204,
        lastError: null,
      }),
    ]);

    // Events the hook did not subscribe to are not sent.
    const doc = await fetch(`${registry.url}/com.acme.hooked?write=true`).then((r) => r.json() as Promise<Record<string, never>>);
    await fetch(`${registry.url}/-/package/com.acme.hooked/dist-tags/beta`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '"1.0.0"',
    });
    await registry.services.webhookDispatcher.settled();
    expect(doc).toBeDefined();
    expect(receiver.received).toHaveLength(1);
  });

  it('survives a receiver outage and a node restart: retried with backoff, delivered once, logged', async () => {
    const first = await node();
    const hook = await addHook(first, 'package');
    const token = await loginUser(first.url, 'alice');
    await receiver.down();
    expect((await publishVersion(first.url, token, 'com.acme.outage', '1.0.0')).status).toBe(201);
    await first.services.webhookDispatcher.settled();
    const [failed] = await deliveries(first, hook.id);
    expect(failed).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatus: null,
      lastError: expect.stringMatching(/ECONNREFUSED/),
    });
    const retryAt = Date.parse(String(failed!.nextAttemptAt));
    expect(retryAt).toBeGreaterThan(clock);

    // The node stops before the retry; another starts on the same store, the receiver comes back.
    await first.close();
    started.splice(started.indexOf(first), 1);
    await receiver.up();
    const second = await node();
    await second.services.webhookDispatcher.deliverDue();
    expect(receiver.received).toHaveLength(0);
    clock = retryAt;
    await second.services.webhookDispatcher.deliverDue();
    await second.services.webhookDispatcher.settled();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers['x-pkg-delivery']).toBe(failed!.id);
    expect(
      verifySignature(receiver.received[0]!.body, String(receiver.received[0]!.headers['x-pkg-signature-256']), hook.secret),
    ).toBe(true);
    expect(await deliveries(second, hook.id)).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 2, lastStatus: 204 }),
    ]);

    // Nothing more is sent, however late.
    clock += 2 * 24 * HOUR;
    await second.services.webhookDispatcher.deliverDue();
    expect(receiver.received).toHaveLength(1);
  });

  it('gives up after a day of failures; redeliver sends it again', async () => {
    const registry = await sharedNode();
    const hook = await addHook(registry);
    const token = await loginUser(registry.url, 'alice');
    receiver.answer = 500;
    expect((await publishVersion(registry.url, token, 'com.acme.failing', '1.0.0')).status).toBe(201);
    await registry.services.webhookDispatcher.settled();
    for (let i = 0; i < 40; i++) {
      const [delivery] = await deliveries(registry, hook.id);
      if (delivery!.status !== 'pending') break;
      clock = Math.max(clock, Date.parse(String(delivery!.nextAttemptAt)));
      await registry.services.webhookDispatcher.deliverDue();
    }
    const [given] = await deliveries(registry, hook.id);
    expect(given).toMatchObject({ status: 'failed', lastStatus: 500, lastError: 'the receiver answered HTTP 500' });
    const attempts = given!.attempts as number;
    expect(attempts).toBeGreaterThan(5);
    expect(receiver.received).toHaveLength(attempts);
    // Backoff: the attempts spread over the day instead of coming at once.
    expect(Date.parse(String(given!.lastAttemptAt)) - Date.parse(String(given!.createdAt))).toBeGreaterThan(12 * HOUR);

    receiver.answer = 204;
    const redelivered = await webhook(registry, ['redeliver', String(given!.id)]);
    expect(redelivered.code).toBe(0);
    await registry.services.webhookDispatcher.deliverDue();
    expect(await deliveries(registry, hook.id)).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: attempts + 1 }),
    ]);
    expect(receiver.received.at(-1)!.headers['x-pkg-delivery']).toBe(given!.id);
  });

  it('never follows a redirect: only the configured URL is ever posted to', async () => {
    const registry = await sharedNode();
    const hook = await addHook(registry);
    receiver.answer = 307;
    const token = await loginUser(registry.url, 'alice');
    expect((await publishVersion(registry.url, token, 'com.acme.redirected', '1.0.0')).status).toBe(201);
    await registry.services.webhookDispatcher.settled();
    expect(receiver.received.map((r) => r.url)).toEqual(['/hook']);
    expect((await deliveries(registry, hook.id))[0]).toMatchObject({ status: 'pending', lastStatus: 307 });
  });

  it('rotates the secret without a gap: both sign during the overlap, then the new one alone', async () => {
    const registry = await sharedNode();
    const hook = await addHook(registry);
    const token = await loginUser(registry.url, 'alice');
    const rotated = await webhook(registry, ['rotate-secret', hook.id, '--overlap-hours', '2', '--json']);
    expect(rotated.code).toBe(0);
    const { secret } = JSON.parse(rotated.stdout) as { secret: string };
    expect(secret).not.toBe(hook.secret);

    expect((await publishVersion(registry.url, token, 'com.acme.rotated', '1.0.0')).status).toBe(201);
    await registry.services.webhookDispatcher.settled();
    const during = receiver.received[0]!;
    const both = String(during.headers['x-pkg-signature-256']);
    expect(both.split(', ')).toHaveLength(2);
    expect(verifySignature(during.body, both, secret)).toBe(true);
    expect(verifySignature(during.body, both, hook.secret)).toBe(true);

    clock += 3 * HOUR;
    expect((await publishVersion(registry.url, token, 'com.acme.rotated', '1.0.1')).status).toBe(201);
    await registry.services.webhookDispatcher.settled();
    const after = receiver.received[1]!;
    const one = String(after.headers['x-pkg-signature-256']);
    expect(one).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(after.body, one, secret)).toBe(true);
    expect(verifySignature(after.body, one, hook.secret)).toBe(false);
  });

  it('two nodes on one store deliver each event once', async () => {
    const a = await node();
    const b = await node();
    const hook = await addHook(a);
    const token = await loginUser(a.url, 'alice');
    await receiver.down();
    for (let i = 0; i < 6; i++)
      expect((await publishVersion(i % 2 ? b.url : a.url, token, 'com.acme.twice', `1.0.${i}`)).status).toBe(201);
    await Promise.all([a.services.webhookDispatcher.settled(), b.services.webhookDispatcher.settled()]);
    await receiver.up();
    clock += HOUR;
    await Promise.all([
      a.services.webhookDispatcher.deliverDue(),
      b.services.webhookDispatcher.deliverDue(),
      a.services.webhookDispatcher.deliverDue(),
    ]);
    const ids = receiver.received.map((r) => r.headers['x-pkg-delivery']);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    expect((await deliveries(b, hook.id)).map((d) => d.status)).toEqual(Array(6).fill('delivered'));
  });

  it('refuses a bad hook with a reason and changes nothing', async () => {
    const registry = await sharedNode();
    const badUrl = await webhook(registry, ['add', 'ftp://example.com/x', '--events', 'package']);
    expect(badUrl).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^Error: A webhook URL must be http:\/\/ or https:\/\//),
    });
    const badEvent = await webhook(registry, ['add', receiver.url, '--events', 'token.create']);
    expect(badEvent).toMatchObject({ code: 1, stderr: expect.stringContaining("Unknown event 'token.create'") });
    const noEvents = await webhook(registry, ['add', receiver.url]);
    expect(noEvents.code).toBe(2);
    expect((await webhook(registry, ['remove', 'nope'])).stderr).toContain("There is no webhook 'nope'");
    expect((await webhook(registry, ['list'])).stdout).toBe('No webhooks.\n');
  });

  it('sends access changes (teams, their members, their namespaces) to hooks subscribed to them', async () => {
    const registry = await sharedNode();
    const hook = await addHook(registry, 'team,namespace.claim');
    const boss = await loginUser(registry.url, 'boss');
    await registry.storage.registry.users.update('', 'boss', { admin: true });
    await loginUser(registry.url, 'alice');
    const api = (path: string, method: string, body?: unknown) =>
      request(`${registry.url}/-/pkg/v1/teams${path}`, { method, token: boss, ...(body ? { body } : {}) });
    expect((await api('', 'POST', { name: 'studio' })).status).toBe(201);
    expect((await api('/studio/members/alice', 'PUT')).status).toBe(200);
    expect((await api('/studio/namespaces/com.studio.*', 'PUT')).status).toBe(200);
    const events = (await deliveries(registry, hook.id)).map((d) => d.event).sort();
    expect(events).toEqual(['namespace.claim', 'team.create', 'team.member-add']);
  });

  it('update changes where a hook posts and what it is sent, its secret kept; refuses bad input', async () => {
    const registry = await sharedNode();
    const hook = await addHook(registry, 'package.publish');
    const updated = await webhook(registry, ['update', hook.id, '--events', 'dist-tag,advisory', '--url', `${receiver.url}/v2`]);
    expect(updated.stderr).toBe('');
    expect(updated.stdout).toBe(`Webhook ${hook.id} now sends dist-tag, advisory to ${receiver.url}/v2\n`);
    const [listed] = await registry.storage.webhooks.listWebhooks('');
    expect(listed).toMatchObject({ url: `${receiver.url}/v2`, events: ['dist-tag', 'advisory'] });
    expect(listed!.secrets.map((s) => s.secret)).toEqual([hook.secret]);
    const [entry] = await registry.services.audit.query('', { action: 'webhook.change', limit: 1 });
    expect(entry).toMatchObject({ via: 'cli', target: `webhook ${hook.id}` });
    expect(await webhook(registry, ['update', hook.id])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('needs --url or --events'),
    });
    expect(await webhook(registry, ['update', hook.id, '--events', 'nonsense'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("Unknown event 'nonsense'"),
    });
    expect((await webhook(registry, ['update', 'nope', '--events', '*'])).stderr).toContain("There is no webhook 'nope'");
    expect((await registry.storage.webhooks.listWebhooks(''))[0]!.events).toEqual(['dist-tag', 'advisory']);
  });
});
