import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { WebClient, decodeEntities, squash } from './web-client.js';

/**
 * The advisories page of a package (`/-/web/package/<name>/advisories`): its maintainers and
 * the registry's administrators publish and withdraw there with the HTTP API's checks and
 * refusals, in the audit log and to webhooks as the API's changes are; others only read. The
 * upstream's advisories of a proxied package are shown as the upstream's, and the page never
 * fails while the upstream is down.
 */
const NAME = 'com.acme.level';
const PAGE = `/-/web/package/${NAME}/advisories`;
const PROXIED = 'com.upstream.loader';
let registry: TestRegistry;
let upstream: TestRegistry;
let aliceToken: string;
let rootToken: string;
let upstreamClosed = false;

async function signedIn(name: string, password: string): Promise<WebClient> {
  const client = new WebClient(registry.url);
  await client.get('/-/web/signin');
  const res = await client.post('/-/web/signin', { csrf: client.csrf(), name, password });
  expect(res.status).toBe(303);
  return client;
}

const form = {
  id: 'CVE-2026-4242',
  severity: 'high',
  vulnerable_versions: '<1.1.0',
  patched_versions: '>=1.1.0',
  title: 'Level files <b>run</b> code',
  description: 'Opening a level\nruns its scripts.',
  url: 'https://example.com/cve-2026-4242',
};

beforeAll(async () => {
  upstream = await startRegistry();
  const publisher = await loginUser(upstream.url, 'publisher');
  for (const version of ['1.0.0', '1.0.1', '1.0.2'])
    expect((await publishVersion(upstream.url, publisher, PROXIED, version)).status).toBe(201);
  const upstreamAdvisory = await request(`${upstream.url}/-/pkg/v1/advisories/${PROXIED}`, {
    method: 'POST',
    token: publisher,
    body: { id: 'CVE-2026-0001', severity: 'critical', vulnerable_versions: '<1.0.2', title: 'Upstream <i>flaw</i>' },
  });
  expect(upstreamAdvisory.status).toBe(201);
  registry = await startRegistry({
    settings: {
      uplinks: JSON.stringify([
        { name: 'npmjs-mirror', url: upstream.url, packages: ['com.upstream.*'], maxAge: 3600, timeout: 5 },
      ]),
    },
  });
  aliceToken = await loginUser(registry.url, 'alice', 'pw-alice');
  await loginUser(registry.url, 'bob', 'pw-bob');
  rootToken = await loginUser(registry.url, 'root', 'pw-root');
  await registry.storage.registry.users.update('', 'root', { admin: true });
  for (const version of ['1.0.0', '1.1.0'])
    expect((await publishVersion(registry.url, aliceToken, NAME, version)).status).toBe(201);
  // The proxied package, fetched through the uplink once.
  expect((await request(`${registry.url}/${PROXIED}`)).status).toBe(200);
  // A webhook for advisories: the web's changes reach it as the API's do.
  await registry.services.webhooks.add('', { url: 'http://127.0.0.1:9/hook', events: ['advisory'], createdBy: 'test' });
});
afterAll(async () => {
  await registry?.close();
  if (!upstreamClosed) await upstream?.close();
});

describe('the advisories page', () => {
  it('is linked from the package page, and shows no forms to visitors and to users who may not manage', async () => {
    const visitor = new WebClient(registry.url);
    expect((await visitor.get(`/-/web/package/${NAME}`)).html).toContain(`href="${PAGE}"`);
    const page = await visitor.get(PAGE);
    expect(page.status).toBe(200);
    expect(squash(page.html)).toContain('In force (0)');
    expect(page.html).not.toContain('<form method="post" action="/-/web/package');
    const bob = await signedIn('bob', 'pw-bob');
    expect((await bob.get(PAGE)).html).not.toContain('Publish an advisory');
    expect((await visitor.get('/-/web/package/com.acme.missing/advisories')).status).toBe(404);
  });

  it('lets a maintainer publish: listed on the page and by the API, marked on the affected version, logged and sent to webhooks', async () => {
    const alice = await signedIn('alice', 'pw-alice');
    const page = await alice.get(PAGE);
    expect(page.html).toContain('Publish an advisory');
    const res = await alice.post(PAGE, { csrf: alice.csrf(), ...form });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${PAGE}?done=published#advisory-CVE-2026-4242`);
    const shown = await alice.get(`${PAGE}?done=published`);
    const text = squash(shown.html);
    expect(text).toContain('The advisory was published.');
    expect(text).toContain('In force (1)');
    expect(shown.html).toContain('Level files &lt;b&gt;run&lt;/b&gt; code');
    expect(text).toContain('<code>&lt;1.1.0</code>');
    expect(text).toContain('<code>&gt;=1.1.0</code>');
    expect(shown.html).toContain('href="https://example.com/cve-2026-4242"');

    const api = await request(`${registry.url}/-/pkg/v1/advisories/${NAME}`);
    expect(api.body.advisories).toEqual([
      expect.objectContaining({
        id: 'CVE-2026-4242',
        severity: 'high',
        vulnerable_versions: '<1.1.0',
        patched_versions: '>=1.1.0',
        title: form.title,
        published_by: 'alice',
      }),
    ]);
    // The affected version shows it; the fixed one does not; the versions list marks the affected one.
    expect((await alice.get(`/-/web/package/${NAME}?version=1.0.0`)).html).toContain('high advisory');
    const latest = squash((await alice.get(`/-/web/package/${NAME}?version=1.1.0`)).html);
    expect(latest).not.toContain('high advisory');
    expect(latest).toContain('>1.0.0</a><span class="tag">advisory</span>');
    expect(latest).not.toMatch(/>1\.1\.0<\/a>(<span class="tag">[a-z]+<\/span>)*<span class="tag">advisory/);

    const [entry] = await registry.services.audit.query('', { action: 'advisory', limit: 5 });
    expect(entry).toMatchObject({
      action: 'advisory.publish',
      outcome: 'success',
      user: 'alice',
      package: NAME,
      target: `${NAME} advisory CVE-2026-4242`,
    });
    const [hook] = await registry.services.webhooks.list('');
    const deliveries = await registry.services.webhooks.deliveries('', hook!.id);
    expect(deliveries.map((d) => d.event)).toContain('advisory.publish');
  });

  it("refuses bad input with the API's words, keeps what was typed, and changes nothing", async () => {
    const alice = await signedIn('alice', 'pw-alice');
    await alice.get(PAGE);
    const bad = { ...form, id: 'CVE-2026-9999', vulnerable_versions: 'not a range' };
    const res = await alice.post(PAGE, { csrf: alice.csrf(), ...bad });
    const api = await request(`${registry.url}/-/pkg/v1/advisories/${NAME}`, {
      method: 'POST',
      token: aliceToken,
      body: bad,
    });
    expect(res.status).toBe(api.status);
    expect(api.status).toBe(422);
    const message = /<div id="publish-error" class="error" role="alert">([^<]*)<\/div>/.exec(squash(res.html))?.[1];
    expect(decodeEntities(message ?? '')).toBe(api.body.details ?? api.body.error);
    expect(res.html).toContain('value="not a range"');
    expect(res.html).toContain('aria-invalid="true"');
    const list = await request(`${registry.url}/-/pkg/v1/advisories/${NAME}`);
    expect(list.body.advisories.map((a: { id: string }) => a.id)).toEqual(['CVE-2026-4242']);
  });

  it("refuses a user who is neither a maintainer nor an administrator, with the API's reason", async () => {
    const bob = await signedIn('bob', 'pw-bob');
    await bob.get(PAGE);
    const res = await bob.post(PAGE, { csrf: bob.csrf(), ...form, id: 'BOB-1' });
    expect(res.status).toBe(403);
    expect(decodeEntities(squash(res.html))).toContain(
      `Only the maintainers of '${NAME}' and this registry's administrators may publish or withdraw its advisories; 'bob' is neither`,
    );
    const withdraw = await bob.post(`${PAGE}/CVE-2026-4242/withdraw`, { csrf: bob.csrf() });
    expect(withdraw.status).toBe(403);
    const list = await request(`${registry.url}/-/pkg/v1/advisories/${NAME}`);
    expect(list.body.advisories.map((a: { id: string; withdrawn: string | null }) => [a.id, a.withdrawn])).toEqual([
      ['CVE-2026-4242', null],
    ]);
    const [refusal] = await registry.services.audit.query('', { action: 'advisory', outcome: 'refused', limit: 5 });
    expect(refusal).toMatchObject({ action: 'advisory.withdraw', package: NAME, user: 'bob' });
  });

  it('refuses a form without the CSRF token, and sends a signed-out visitor to sign in', async () => {
    const alice = await signedIn('alice', 'pw-alice');
    await alice.get(PAGE);
    expect((await alice.post(PAGE, { ...form, id: 'NO-CSRF' })).status).toBe(403);
    const visitor = new WebClient(registry.url);
    await visitor.get(PAGE);
    const res = await visitor.post(PAGE, { csrf: visitor.csrf(), ...form, id: 'SIGNED-OUT' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/-/web/signin?next=${encodeURIComponent(PAGE)}`);
    const list = await request(`${registry.url}/-/pkg/v1/advisories/${NAME}`);
    expect(list.body.advisories.map((a: { id: string }) => a.id)).toEqual(['CVE-2026-4242']);
  });

  it('lets an administrator withdraw: shown as withdrawn, gone from the audit answers, logged', async () => {
    const root = await signedIn('root', 'pw-root');
    const page = await root.get(PAGE);
    expect(page.html).toContain('aria-label="Withdraw advisory CVE-2026-4242"');
    const res = await root.post(`${PAGE}/CVE-2026-4242/withdraw`, { csrf: root.csrf() });
    expect(res.status).toBe(303);
    const text = squash((await root.get(`${PAGE}?done=withdrawn`)).html);
    expect(text).toContain('The advisory was withdrawn.');
    expect(text).toContain('In force (0)');
    expect(text).toContain('Withdrawn (1)');
    const bulk = await request(`${registry.url}/-/npm/v1/security/advisories/bulk`, {
      method: 'POST',
      body: { [NAME]: ['1.0.0'] },
    });
    expect(bulk.body).toEqual({});
    const [entry] = await registry.services.audit.query('', { action: 'advisory.withdraw', outcome: 'success', limit: 1 });
    expect(entry).toMatchObject({ user: 'root', target: `${NAME} advisory CVE-2026-4242` });
    // An unknown advisory: the API's 404, on the page.
    const missing = await root.post(`${PAGE}/NOPE-1/withdraw`, { csrf: root.csrf() });
    expect(missing.status).toBe(404);
    expect(decodeEntities(squash(missing.html))).toContain(`'${NAME}' has no advisory 'NOPE-1'`);
    void rootToken;
  });
});

describe("a proxied package's advisories", () => {
  it("shows the upstream's on the affected version and on the advisories page, marked as the upstream's, without forms", async () => {
    const root = await signedIn('root', 'pw-root');
    const version = await root.get(`/-/web/package/${PROXIED}?version=1.0.1`);
    expect(version.status).toBe(200);
    expect(squash(version.html)).toContain('critical advisory from the upstream registry<bdi>npmjs-mirror</bdi>');
    expect(version.html).toContain('Upstream &lt;i&gt;flaw&lt;/i&gt;');
    const fixed = squash((await root.get(`/-/web/package/${PROXIED}?version=1.0.2`)).html);
    expect(fixed).not.toContain('critical advisory');
    expect(fixed).toContain('>1.0.1</a><span class="tag">advisory</span>');
    expect(fixed).toContain('>1.0.0</a><span class="tag">advisory</span>');
    expect(fixed).toContain('>1.0.2</a><span class="tag">latest</span></td>');
    const page = await root.get(`/-/web/package/${PROXIED}/advisories`);
    const text = squash(page.html);
    expect(text).toContain('From the upstream registry');
    expect(text).toContain('<code>CVE-2026-0001</code>');
    expect(text).toContain('(from the upstream registry<bdi>npmjs-mirror</bdi>)');
    // Its advisories are the upstream's: even an administrator gets no forms.
    expect(page.html).not.toContain('Publish an advisory');
  });

  it('keeps both pages up while the upstream is down, from what was cached', async () => {
    await upstream.close();
    upstreamClosed = true;
    const visitor = new WebClient(registry.url);
    const version = await visitor.get(`/-/web/package/${PROXIED}?version=1.0.1`);
    expect(version.status).toBe(200);
    expect(version.html).toContain('Upstream &lt;i&gt;flaw&lt;/i&gt;');
    const page = await visitor.get(`/-/web/package/${PROXIED}/advisories`);
    expect(page.status).toBe(200);
    expect(squash(page.html)).toContain('<code>CVE-2026-0001</code>');
  });
});
