import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import { loginOn, registryHost, startRegistry, type RegistryHost, type TestRegistry } from '@pkg/testkit';
import { seedPackage } from './seed.js';
import { WebClient, squash, textOfId } from './web-client.js';

const DOMAIN = 'registry.test';

let registry: TestRegistry;
let hosts: Record<'global' | 'a' | 'b' | 'private', RegistryHost>;

/** A browser-like client on one registry host. */
const client = (which: keyof typeof hosts) => new WebClient(registry.url, hosts[which].host);

beforeAll(async () => {
  registry = await startRegistry({ settings: { registryDomain: DOMAIN } });
  const admin = new TenantAdmin(registry.storage);
  await admin.create('a', {});
  await admin.create('b', {});
  await admin.create('private', { readAccess: 'token' });
  hosts = {
    global: registryHost(registry.url, DOMAIN),
    a: registryHost(registry.url, `a.${DOMAIN}`),
    b: registryHost(registry.url, `b.${DOMAIN}`),
    private: registryHost(registry.url, `private.${DOMAIN}`),
  };
  await seedPackage(registry, { name: 'com.shared.tool', description: 'Global tool', versions: [{ version: '1.0.0' }] });
  await seedPackage(registry, {
    tenant: 'a',
    name: 'com.alpha.tool',
    description: 'Alpha tool',
    versions: [{ version: '1.0.0', fields: { dependencies: { 'com.alpha.base': '1.0.0', 'com.beta.tool': '1.0.0' } } }],
  });
  await seedPackage(registry, {
    tenant: 'a',
    name: 'com.alpha.base',
    description: 'Alpha base tool',
    versions: [{ version: '1.0.0' }],
  });
  await seedPackage(registry, { tenant: 'b', name: 'com.beta.tool', description: 'Beta tool', versions: [{ version: '1.0.0' }] });
  await seedPackage(registry, { tenant: 'private', name: 'com.private.tool', versions: [{ version: '1.0.0' }] });
  await loginOn(hosts.a, 'alice', 'pw-a');
  await loginOn(hosts.b, 'alice', 'pw-b');
});
afterAll(async () => {
  await registry?.close();
});

describe('the web interface of each tenant', () => {
  it.each([
    ['global', ['com.shared.tool'], ['com.alpha.tool', 'com.beta.tool']],
    ['a', ['com.alpha.tool', 'com.alpha.base'], ['com.shared.tool', 'com.beta.tool']],
    ['b', ['com.beta.tool'], ['com.shared.tool', 'com.alpha.tool']],
  ] as const)('home and search of %s list its own packages only', async (which, own, foreign) => {
    const home = (await client(which).get('/')).html;
    const search = (await client(which).get('/-/web/search?q=tool')).html;
    for (const page of [home, search]) {
      for (const name of own) expect(page).toContain(`href="/-/web/package/${name}"`);
      for (const name of foreign) expect(page).not.toContain(name);
    }
  });

  it("does not show another registry's package page", async () => {
    expect((await client('b').get('/-/web/package/com.alpha.tool')).status).toBe(404);
    expect((await client('global').get('/-/web/package/com.alpha.tool')).status).toBe(404);
    expect((await client('a').get('/-/web/package/com.alpha.tool')).status).toBe(200);
  });

  it("builds the install snippet for the tenant's own URL, with its own packages as scopes", async () => {
    const page = squash((await client('a').get('/-/web/package/com.alpha.tool')).html);
    expect(JSON.parse(textOfId(page, 'install-manifest')!)).toEqual({
      scopedRegistries: [
        {
          name: `a.${DOMAIN}`,
          url: hosts.a.origin,
          // com.beta.tool exists, but on tenant b: not served here, not a scope, not a link
          scopes: ['com.alpha.base', 'com.alpha.tool'],
        },
      ],
      dependencies: { 'com.alpha.tool': '1.0.0' },
    });
    expect(page).toContain('<a href="/-/web/package/com.alpha.base">com.alpha.base</a>');
    expect(page).toContain('<span>com.beta.tool</span>');
    expect(page).toContain('>pkg-registry<span class="site">a</span><span class="tenant">packages</span></a>');
  });

  it('answers an unknown tenant host with an HTML 404', async () => {
    const page = await new WebClient(registry.url, `nope.${DOMAIN}`).get('/');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.html).toContain('There is no registry at');
  });

  it('keeps the pages of a token-only tenant for its signed-in users', async () => {
    const visitor = client('private');
    const page = await visitor.get('/-/web/package/com.private.tool');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/-/web/signin?next=%2F-%2Fweb%2Fpackage%2Fcom.private.tool');
    // a user of another tenant is not a user here
    const signIn = await visitor.get('/-/web/signin');
    expect(signIn.status).toBe(200);
    const wrong = await visitor.post('/-/web/signin', { csrf: visitor.csrf(), name: 'alice', password: 'pw-a' });
    expect(wrong.status).toBe(401);
    await loginOn(hosts.private, 'pat', 'pw-pat');
    const ok = await visitor.post('/-/web/signin', { csrf: visitor.csrf(), name: 'pat', password: 'pw-pat', next: '/' });
    expect(ok.status).toBe(303);
    expect((await visitor.get('/')).html).toContain('com.private.tool');
  });
});

describe('accounts and web login per tenant', () => {
  it("signs in with the tenant's own account; its session means nothing on another tenant", async () => {
    const onA = client('a');
    await onA.get('/-/web/signin');
    expect((await onA.post('/-/web/signin', { csrf: onA.csrf(), name: 'alice', password: 'pw-b' })).status).toBe(401);
    expect((await onA.post('/-/web/signin', { csrf: onA.csrf(), name: 'alice', password: 'pw-a' })).status).toBe(303);
    expect((await onA.get('/-/web/account')).status).toBe(200);

    const replay = client('b');
    for (const [name, value] of onA.cookies) replay.cookies.set(name, value);
    expect((await replay.get('/-/web/account')).status).toBe(303);
    expect((await replay.get('/')).html).not.toContain('/-/web/account">alice');
  });

  it("runs npm's web login on the tenant's host; its URLs do nothing on another host", async () => {
    const start = await hosts.a.request('/-/v1/login', { method: 'POST', body: {} });
    expect(start.status).toBe(200);
    const { loginUrl, doneUrl } = start.body as { loginUrl: string; doneUrl: string };
    expect(loginUrl.startsWith(`${hosts.a.origin}/-/web/login/`)).toBe(true);
    expect(doneUrl.startsWith(`${hosts.a.origin}/-/v1/login/done/`)).toBe(true);
    const loginPath = new URL(loginUrl).pathname;
    const donePath = new URL(doneUrl).pathname;

    expect((await client('b').get(loginPath)).status).toBe(404);
    expect((await hosts.b.request(donePath)).status).toBe(404);
    expect((await hosts.global.request(donePath)).status).toBe(404);

    const browser = client('a');
    await browser.get(loginPath);
    expect((await browser.post(loginPath, { csrf: browser.csrf(), name: 'alice', password: 'pw-a' })).status).toBe(303);
    const done = await hosts.a.request(donePath);
    expect(done.status).toBe(200);
    const token = (done.body as { token: string }).token;
    expect((await hosts.a.request('/-/whoami', { token })).body).toMatchObject({
      username: 'alice',
      registry: `${hosts.a.origin}/`,
    });
    expect((await hosts.b.request('/-/whoami', { token })).status).toBe(401);
  });
});
