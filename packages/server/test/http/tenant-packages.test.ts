import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import {
  loginOn,
  publishBody,
  registryHost,
  sha512Integrity,
  startRegistry,
  type RegistryHost,
  type TestRegistry,
} from '@pkg/testkit';

// The package endpoints across the global registry and two tenants on one server: the same
// name holds different packages, and nothing of one registry shows on another.
const DOMAIN = 'registry.test';
const SHARED = 'com.example.shared';
const NAMES = ['global', 'a', 'b'] as const;
type Which = (typeof NAMES)[number];

let registry: TestRegistry;
const hosts = {} as Record<Which, RegistryHost>;
const tokens = {} as Record<Which, string>;
const tarballs = {} as Record<Which, Buffer>;
const issued: string[] = [];

async function login(on: RegistryHost, name: string): Promise<string> {
  const token = await loginOn(on, name);
  issued.push(token);
  return token;
}

beforeAll(async () => {
  registry = await startRegistry({ settings: { registryDomain: DOMAIN }, captureLogs: true });
  const admin = new TenantAdmin(registry.storage);
  await admin.create('a', {});
  await admin.create('b', {});
  await admin.create('private', { readAccess: 'token' });
  hosts.global = registryHost(registry.url, DOMAIN);
  hosts.a = registryHost(registry.url, `a.${DOMAIN}`);
  hosts.b = registryHost(registry.url, `b.${DOMAIN}`);
  // The same user name and the same package name on all three, each with its own contents.
  for (const which of NAMES) {
    tokens[which] = await login(hosts[which], 'publisher');
    const { body, tarball } = publishBody(SHARED, '1.0.0', { manifest: { description: `shared on ${which}` } });
    tarballs[which] = tarball;
    const res = await hosts[which].request(`/${SHARED}`, { method: 'PUT', token: tokens[which], body });
    expect(res.status).toBe(201);
  }
});
afterAll(async () => {
  await registry?.close();
});

describe.each(NAMES)('registry %s', (which) => {
  const others = () => NAMES.filter((n) => n !== which);

  it('serves its own document, with tarball URLs on its own host', async () => {
    const on = hosts[which];
    const doc = await on.request(`/${SHARED}`);
    expect(doc.status).toBe(200);
    expect(doc.body.description).toBe(`shared on ${which}`);
    expect(doc.body.versions['1.0.0'].dist.tarball).toBe(`${on.origin}/${SHARED}/-/${SHARED}-1.0.0.tgz`);
    expect(doc.body.versions['1.0.0'].dist.integrity).toBe(sha512Integrity(tarballs[which]));

    const abbreviated = await on.request(`/${SHARED}`, { headers: { accept: 'application/vnd.npm.install-v1+json' } });
    expect(abbreviated.body.versions['1.0.0'].dist.tarball).toBe(`${on.origin}/${SHARED}/-/${SHARED}-1.0.0.tgz`);

    const version = await on.request(`/${SHARED}/1.0.0`);
    expect(version.body).toMatchObject({ description: `shared on ${which}` });
    expect(version.body.dist.tarball).toBe(`${on.origin}/${SHARED}/-/${SHARED}-1.0.0.tgz`);
  });

  it('serves its own tarball bytes', async () => {
    const res = await hosts[which].request(`/${SHARED}/-/${SHARED}-1.0.0.tgz`);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(tarballs[which])).toBe(true);
    const head = await hosts[which].request(`/${SHARED}/-/${SHARED}-1.0.0.tgz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(tarballs[which].length);
  });

  it('a package published here does not exist elsewhere', async () => {
    const only = `com.example.only-${which === 'global' ? 'global' : which}`;
    const { body } = publishBody(only, '2.0.0');
    expect((await hosts[which].request(`/${only}`, { method: 'PUT', token: tokens[which], body })).status).toBe(201);
    for (const other of others()) {
      for (const path of [`/${only}`, `/${only}/2.0.0`, `/${only}/-/${only}-2.0.0.tgz`, `/-/package/${only}/dist-tags`]) {
        const res = await hosts[other].request(path);
        expect(res.status, `${other} ${path}`).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    }
  });

  it('dist-tags change here only', async () => {
    const { body } = publishBody(SHARED, `1.1.0-${which}`, { tag: 'next' });
    expect((await hosts[which].request(`/${SHARED}`, { method: 'PUT', token: tokens[which], body })).status).toBe(201);
    const tag = await hosts[which].request(`/-/package/${SHARED}/dist-tags/beta`, {
      method: 'PUT',
      token: tokens[which],
      body: `1.1.0-${which}`,
    });
    expect(tag.status).toBe(200);
    expect((await hosts[which].request(`/-/package/${SHARED}/dist-tags`)).body).toMatchObject({
      latest: '1.0.0',
      beta: `1.1.0-${which}`,
    });
    for (const other of others()) {
      const tags = (await hosts[other].request(`/-/package/${SHARED}/dist-tags`)).body;
      expect(tags.beta).not.toBe(`1.1.0-${which}`);
      expect(tags.next).not.toBe(`1.1.0-${which}`);
      expect(await hosts[other].request(`/${SHARED}/1.1.0-${which}`).then((r) => r.status)).toBe(404);
    }
  });

  it('a token of another registry cannot publish or tag here', async () => {
    for (const other of others()) {
      const { body } = publishBody(SHARED, `3.0.0-from-${other}`);
      const publish = await hosts[which].request(`/${SHARED}`, { method: 'PUT', token: tokens[other], body });
      expect(publish.status).toBe(401);
      const tag = await hosts[which].request(`/-/package/${SHARED}/dist-tags/latest`, {
        method: 'PUT',
        token: tokens[other],
        body: '1.0.0',
      });
      expect(tag.status).toBe(401);
    }
    expect(Object.keys((await hosts[which].request(`/${SHARED}`)).body.versions)).not.toContain(`3.0.0-from-global`);
  });
});

describe('search and download counts', () => {
  it('each registry searches and lists its own packages only', async () => {
    for (const which of NAMES) {
      const res = await hosts[which].request('/-/v1/search?text=example&size=250');
      expect(res.status).toBe(200);
      const found = res.body.objects.map((o: { package: { name: string } }) => o.package.name).sort();
      expect(found).toEqual([SHARED, `com.example.only-${which}`].sort());
      expect(res.body.total).toBe(2);
      const shared = res.body.objects.find((o: { package: { name: string } }) => o.package.name === SHARED);
      expect(shared.package.description).toBe(`shared on ${which}`);

      const all = await hosts[which].request('/-/all');
      expect(
        Object.keys(all.body)
          .filter((key) => key !== '_updated')
          .sort(),
      ).toEqual(found);
    }
  });

  it('each registry counts the downloads of its own tarballs', async () => {
    for (let i = 0; i < 2; i++) expect((await hosts.a.request(`/${SHARED}/-/${SHARED}-1.0.0.tgz`)).status).toBe(200);
    await registry.services.downloads.flush();
    const counts: Record<string, number> = {};
    for (const which of NAMES) {
      const res = await hosts[which].request(`/downloads/point/last-week/${SHARED}`);
      expect(res.status).toBe(200);
      counts[which] = res.body.downloads;
    }
    // One GET each in "serves its own tarball bytes", two more on a; HEAD requests do not count.
    expect(counts).toEqual({ global: 1, a: 3, b: 1 });
  });
});

describe('a token-only tenant', () => {
  it('answers 401 to anonymous package reads and serves them with a token', async () => {
    const priv = registryHost(registry.url, `private.${DOMAIN}`);
    const token = await login(priv, 'insider');
    const { body, tarball } = publishBody('com.example.secret', '1.0.0');
    expect((await priv.request('/com.example.secret', { method: 'PUT', token, body })).status).toBe(201);
    for (const path of [
      '/com.example.secret',
      '/com.example.secret/1.0.0',
      '/com.example.secret/-/com.example.secret-1.0.0.tgz',
      '/-/package/com.example.secret/dist-tags',
    ]) {
      const anonymous = await priv.request(path);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.text).not.toContain('secret test package');
      expect((await priv.request(path, { token })).status, path).toBe(200);
    }
    expect((await priv.request('/com.example.secret/-/com.example.secret-1.0.0.tgz', { token })).bytes.equals(tarball)).toBe(
      true,
    );
  });
});

describe('request log', () => {
  it('never contains a token issued during this file', async () => {
    const log = registry.logLines.join('');
    expect(registry.logLines.length).toBeGreaterThan(50);
    for (const token of issued) expect(log).not.toContain(token);
  });
});

describe('tenant URLs with publicUrl and cdnUrl configured', () => {
  it('tenant tarballs are on the tenant host; only the global registry uses the CDN', async () => {
    const other = await startRegistry({
      settings: { registryDomain: DOMAIN, publicUrl: `https://${DOMAIN}`, cdnUrl: 'https://cdn.example.com' },
    });
    try {
      await new TenantAdmin(other.storage).create('a', {});
      for (const [host, base] of [
        [DOMAIN, 'https://cdn.example.com'],
        [`a.${DOMAIN}`, `https://a.${DOMAIN}`],
      ] as const) {
        const on = registryHost(other.url, host);
        const token = await loginOn(on, 'cdn-user');
        expect((await on.request(`/${SHARED}`, { method: 'PUT', token, body: publishBody(SHARED, '1.0.0').body })).status).toBe(
          201,
        );
        const doc = (await on.request(`/${SHARED}`)).body;
        expect(doc.versions['1.0.0'].dist.tarball).toBe(`${base}/${SHARED}/-/${SHARED}-1.0.0.tgz`);
      }
    } finally {
      await other.close();
    }
  });
});
