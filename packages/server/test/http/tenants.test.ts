import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin, TenantService, loadConfig, type AccountStores, type TenantStore } from '@pkg/server';
import { loginOn, publishBody, registryHost, startRegistry, type RegistryHost, type TestRegistry } from '@pkg/testkit';

const DOMAIN = 'registry.test';

let registry: TestRegistry;
let hosts: Record<'global' | 'a' | 'b', RegistryHost>;
const issuedTokens: string[] = [];
/** The first token of `matrix-user`, an account on each of the three registries with its own password. */
const firstToken: Record<string, string> = {};

beforeAll(async () => {
  registry = await startRegistry({ settings: { registryDomain: DOMAIN }, captureLogs: true });
  const admin = new TenantAdmin(registry.storage);
  await admin.create('a', {});
  await admin.create('b', {});
  await admin.create('closed', { signup: false });
  await admin.create('private', { readAccess: 'token' });
  hosts = {
    global: registryHost(registry.url, DOMAIN),
    a: registryHost(registry.url, `a.${DOMAIN}`),
    b: registryHost(registry.url, `b.${DOMAIN}`),
  };
  for (const which of ['global', 'a', 'b'] as const) firstToken[which] = await login(hosts[which], 'matrix-user', `pw-${which}`);
});
afterAll(async () => {
  await registry?.close();
});

async function login(on: RegistryHost, name: string, password?: string): Promise<string> {
  const token = await loginOn(on, name, password, `${name}@${on.host.split(':')[0]}`);
  issuedTokens.push(token);
  return token;
}

describe.each(['global', 'a', 'b'] as const)('registry %s', (which) => {
  const others = () => (['global', 'a', 'b'] as const).filter((h) => h !== which).map((h) => hosts[h]);

  it('signs up, logs in, and whoami names this registry by its own host', async () => {
    const on = hosts[which];
    const token = firstToken[which]!;
    const who = await on.request('/-/whoami', { token });
    expect(who.status).toBe(200);
    expect(who.body).toEqual({
      username: 'matrix-user',
      email: `matrix-user@${on.host.split(':')[0]}`,
      registry: `${on.origin}/`,
    });
    const again = await login(on, 'matrix-user', `pw-${which}`);
    expect(again).not.toBe(token);
  });

  it('a token of this registry is 401 on every other', async () => {
    const token = await login(hosts[which], 'isolated', `pw-${which}`);
    expect((await hosts[which].request('/-/whoami', { token })).status).toBe(200);
    for (const other of others()) {
      const res = await other.request('/-/whoami', { token });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Token reason="This token is not valid here: it was revoked/);
    }
  });

  it('the same user name elsewhere is another account: its password does not work here', async () => {
    // `matrix-user` exists on every registry with that registry's own password.
    for (const other of others()) {
      const res = await other.request('/-/user/org.couchdb.user:matrix-user', {
        method: 'PUT',
        body: { name: 'matrix-user', password: `pw-${which}` },
      });
      expect(res.status).toBe(401);
    }
    const lookup = await hosts[which].request('/-/user/org.couchdb.user:matrix-user', { token: firstToken[which] });
    expect(lookup.body).toMatchObject({ name: 'matrix-user', email: `matrix-user@${hosts[which].host.split(':')[0]}` });
  });

  it('a user that exists only here is not found elsewhere', async () => {
    await login(hosts[which], `only-${which}`);
    for (const other of (['global', 'a', 'b'] as const).filter((h) => h !== which)) {
      const res = await hosts[other].request(`/-/user/org.couchdb.user:only-${which}`, { token: firstToken[other] });
      expect(res.status).toBe(404);
    }
  });

  it('logout revokes the token here only, and a token of another registry cannot be logged out here', async () => {
    const token = await login(hosts[which], 'leaving');
    const foreign = await login(others()[0]!, 'leaving');
    expect((await hosts[which].request(`/-/user/token/${foreign}`, { method: 'DELETE' })).status).toBe(200);
    expect((await others()[0]!.request('/-/whoami', { token: foreign })).status).toBe(200);

    expect((await hosts[which].request(`/-/user/token/${token}`, { method: 'DELETE' })).body).toEqual({ ok: true });
    expect((await hosts[which].request('/-/whoami', { token })).status).toBe(401);
  });

  it('answers ping', async () => {
    expect((await hosts[which].request('/-/ping')).body).toEqual({});
  });
});

describe('which registry a host names', () => {
  it.each([
    ['an unknown tenant', `nope.${DOMAIN}`],
    ['two labels under the domain', `x.a.${DOMAIN}`],
    ['a label that is not a tenant name', `bad_label.${DOMAIN}`],
    ['a reserved label', `xn--a.${DOMAIN}`],
  ])('%s is 404 NOT_FOUND on every path, login included', async (_label, host) => {
    const on = registryHost(registry.url, host);
    for (const [path, method] of [
      ['/-/ping', 'GET'],
      ['/-/whoami', 'GET'],
      ['/-/user/org.couchdb.user:someone', 'PUT'],
    ] as const) {
      const res = await on.request(path, method === 'PUT' ? { method, body: { name: 'someone', password: 'p' } } : {});
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expect(await registry.storage.registry.users.get('nope', 'someone')).toBeUndefined();
  });

  it('host names are case-insensitive and may end with a dot', async () => {
    const token = await login(hosts.a, 'dotted');
    for (const host of [`A.Registry.TEST`, `a.${DOMAIN}.`]) {
      const res = await registryHost(registry.url, host).request('/-/whoami', { token });
      expect(res.status).toBe(200);
      expect(res.body.username).toBe('dotted');
    }
  });

  it('any other host, and the bare address, is the global registry', async () => {
    const token = await login(hosts.global, 'global-only');
    for (const host of ['other.example', '127.0.0.1', DOMAIN]) {
      expect((await registryHost(registry.url, host).request('/-/whoami', { token })).body.username).toBe('global-only');
    }
  });
});

describe('per-tenant settings', () => {
  it('a tenant with sign-up closed refuses unknown users while the global registry signs them up', async () => {
    const closed = registryHost(registry.url, `closed.${DOMAIN}`);
    const res = await closed.request('/-/user/org.couchdb.user:newbie', {
      method: 'PUT',
      body: { name: 'newbie', password: 'newbie-pw' },
    });
    expect(res.status).toBe(401);
    expect(res.body.details).toMatch(/^Invalid credentials: .*sign-up is closed on this registry/);
    expect(await registry.storage.registry.users.get('closed', 'newbie')).toBeUndefined();
    await login(hosts.global, 'newbie');
  });

  it('a token-only tenant answers 401 to anonymous reads, except login, logout and ping', async () => {
    const priv = registryHost(registry.url, `private.${DOMAIN}`);
    for (const path of ['/-/whoami', '/-/user/org.couchdb.user:anyone', '/com.example.secret', '/no/such/route']) {
      const res = await priv.request(path);
      expect(res.status, path).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toBe(
        'Token reason="This registry requires a token for every request: log in first"',
      );
    }
    expect((await priv.request('/-/ping')).status).toBe(200);
    const token = await login(priv, 'insider');
    expect((await priv.request('/-/user/org.couchdb.user:insider', { token })).status).toBe(200);
    expect((await priv.request('/-/whoami', { token })).status).toBe(200);
    expect((await priv.request(`/-/user/token/${token}`, { method: 'DELETE' })).status).toBe(200);
    // Reads stay anonymous on the other registries.
    expect((await hosts.a.request('/com.example.secret')).status).toBe(404);
  });
});

describe('request log', () => {
  it('never contains a token issued during this file', async () => {
    expect(issuedTokens.length).toBeGreaterThan(10);
    const log = registry.logLines.join('');
    expect(registry.logLines.length).toBeGreaterThan(20);
    for (const token of issuedTokens) expect(log).not.toContain(token);
    const tenantsLogged = new Set(registry.logLines.map((line) => JSON.parse(line).tenant).filter(Boolean));
    expect([...tenantsLogged].sort()).toEqual(['a', 'b', 'closed', 'private']);
  });
});

describe('public URLs with publicUrl configured', () => {
  it.each([
    ['https://registry.test', 'https://registry.test/', 'https://a.registry.test/'],
    ['http://registry.test:8080/', 'http://registry.test:8080/', 'http://a.registry.test:8080/'],
  ])('publicUrl %s: global is %s, tenant a is %s', async (publicUrl, globalUrl, tenantUrl) => {
    const other = await startRegistry({ settings: { registryDomain: DOMAIN, publicUrl } });
    try {
      await new TenantAdmin(other.storage).create('a', {});
      for (const [host, expected] of [
        [DOMAIN, globalUrl],
        [`a.${DOMAIN}`, tenantUrl],
      ] as const) {
        const on = registryHost(other.url, host);
        const token = await loginOn(on, 'url-user');
        expect((await on.request('/-/whoami', { token })).body.registry).toBe(expected);
      }
    } finally {
      await other.close();
    }
  });
});

describe('tenant lookups are cached', () => {
  function countingStore(store: AccountStores): { store: AccountStores; reads: () => number } {
    let reads = 0;
    // The tenant store's methods read private fields: each is called on the store itself.
    const tenants: TenantStore = {
      get: (name) => {
        reads++;
        return store.tenants.get(name);
      },
      list: () => store.tenants.list(),
      create: (tenant) => store.tenants.create(tenant),
      updateSettings: (name, settings) => store.tenants.updateSettings(name, settings),
      delete: (name) => store.tenants.delete(name),
    };
    return { store: { ...store, tenants }, reads: () => reads };
  }

  it('many requests for a tenant read it from the database once per cache period', async () => {
    const { store, reads } = countingStore(registry.storage.registry);
    const config = loadConfig({ flags: { registryDomain: DOMAIN, data: registry.dataDir }, env: {} });
    const deps = { config, registry: store };
    const cached = new TenantService(deps, { cacheMs: 60_000 });
    await Promise.all(Array.from({ length: 50 }, () => cached.resolve(`a.${DOMAIN}`)));
    for (let i = 0; i < 50; i++) expect(await cached.resolve(`a.${DOMAIN}`)).toBe('a');
    await cached.settingsOf('a');
    expect(reads()).toBe(1);

    // Unknown tenants are cached too: a scan of made-up hosts costs one read per name.
    for (let i = 0; i < 5; i++) await expect(cached.resolve(`ghost.${DOMAIN}`)).rejects.toThrow('There is no registry');
    expect(reads()).toBe(2);

    const uncached = new TenantService(deps, { cacheMs: 0 });
    for (let i = 0; i < 3; i++) await uncached.resolve(`a.${DOMAIN}`);
    expect(reads()).toBe(5);
  });
});

describe('deleting a tenant while requests arrive', () => {
  it('writes nothing to it after the delete returns, and drops its buffered download counts', async () => {
    const { registry: accounts, packages, blobs, downloadCounts } = registry.storage;
    const admin = new TenantAdmin(registry.storage);
    await admin.create('doomed', {});
    const doomed = registryHost(registry.url, `doomed.${DOMAIN}`);
    const token = await login(doomed, 'doomed-owner');
    const name = 'com.doomed.tool';
    const publish = (version: string) =>
      doomed.request(`/${name}`, { method: 'PUT', token, body: publishBody(name, version).body });
    expect((await publish('1.0.0')).status).toBe(201);

    // Publishes, sign-ups and downloads keep arriving while the administrator deletes the tenant.
    const statuses: number[] = [];
    let stop = false;
    let n = 0;
    const worker = async () => {
      while (!stop) {
        const i = n++;
        const res = await [
          () => publish(`1.1.${i}`),
          () =>
            doomed.request(`/-/user/org.couchdb.user:walk-in-${i}`, {
              method: 'PUT',
              body: { name: `walk-in-${i}`, password: 'pw' },
            }),
          () => doomed.request(`/${name}/-/${name}-1.0.0.tgz`),
        ][i % 3]!();
        statuses.push(res.status);
      }
    };
    const workers = [worker(), worker(), worker(), worker()];
    while (n < 24) await new Promise((resolve) => setTimeout(resolve, 5));
    await admin.delete('doomed');
    const after = n;
    // Requests keep coming for a while (the tenant lookup is cached for a second), then stop.
    while (n < after + 24) await new Promise((resolve) => setTimeout(resolve, 5));
    stop = true;
    await Promise.all(workers);
    await registry.services.downloads.flush();

    const failed = registry.logLines.filter((line) => line.includes('"statusCode":500') || line.includes('unhandled'));
    expect({ statuses: statuses.filter((s) => s >= 500), failed }).toEqual({ statuses: [], failed: [] });
    expect(statuses.slice(-8).every((s) => s === 404 || s === 401)).toBe(true);
    expect(await accounts.tenants.get('doomed')).toBeUndefined();
    expect(await accounts.users.list('doomed')).toEqual([]);
    expect(await accounts.tokens.list('doomed')).toEqual([]);
    expect(await packages.listPackageNames('doomed', { includeUnpublished: true })).toEqual([]);
    expect(await downloadCounts.list('doomed')).toEqual([]);
    const left: string[] = [];
    for await (const blob of blobs.list()) if (blob.key.startsWith('doomed/')) left.push(blob.key);
    expect(left).toEqual([]);
  });
});
