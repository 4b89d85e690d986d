import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import { loginUser, publishBody, publishVersion, request, requestWithHost, startRegistry, type TestRegistry } from '@pkg/testkit';
import { parseUplinks } from '../../src/config/uplink-config.js';

/** A tenant's own `uplinks` setting: only that tenant serves the upstream's packages. */
const DOMAIN = 'registry.test';
const NAME = 'com.partner.sdk';
let upstream: TestRegistry;
let registry: TestRegistry;

beforeAll(async () => {
  upstream = await startRegistry();
  const token = await loginUser(upstream.url, 'partner');
  expect((await publishVersion(upstream.url, token, NAME, '3.0.0')).status).toBe(201);
  registry = await startRegistry({ settings: { registryDomain: DOMAIN } });
  const admin = new TenantAdmin(registry.storage);
  const uplinks = parseUplinks([{ name: 'partner', url: upstream.url, packages: ['com.partner.*'] }]);
  await admin.create('acme', { uplinks });
  await admin.create('other', {});
});
afterAll(async () => {
  await registry?.close();
  await upstream?.close();
});

describe('uplinks of a tenant', () => {
  it('are in /-/health before they were ever used, with a closed circuit', async () => {
    const health = await request(`${registry.url}/-/health`);
    expect(health.status).toBe(200);
    expect(health.body.uplinks).toEqual([{ tenant: 'acme', uplink: 'partner', circuit: 'closed', failures: 0 }]);
  });

  it("serve the upstream's packages in that tenant, with the tenant's tarball URLs", async () => {
    const doc = await requestWithHost(`${registry.url}/${NAME}`, `acme.${DOMAIN}`);
    expect(doc.status).toBe(200);
    expect(doc.body.versions['3.0.0'].dist.tarball).toBe(`http://acme.${DOMAIN}/${NAME}/-/${NAME}-3.0.0.tgz`);
    const tarball = await requestWithHost(`${registry.url}/${NAME}/-/${NAME}-3.0.0.tgz`, `acme.${DOMAIN}`);
    expect(tarball.status).toBe(200);
  });

  it('leave the other tenants and the global registry local', async () => {
    expect((await requestWithHost(`${registry.url}/${NAME}`, `other.${DOMAIN}`)).status).toBe(404);
    expect((await requestWithHost(`${registry.url}/${NAME}`, DOMAIN)).status).toBe(404);
    const token = await loginUser(registry.url, 'someone');
    expect((await publishVersion(registry.url, token, NAME, '9.0.0')).status).toBe(201);
  });

  it('refuse a publish of a covered name in that tenant', async () => {
    const token = (
      await requestWithHost(`${registry.url}/-/user/org.couchdb.user:me`, `acme.${DOMAIN}`, {
        method: 'PUT',
        body: { name: 'me', password: 'secret-password', email: 'me@example.com' },
      })
    ).body.token as string;
    const published = await requestWithHost(`${registry.url}/com.partner.other`, `acme.${DOMAIN}`, {
      method: 'PUT',
      token,
      body: publishBody('com.partner.other', '1.0.0').body,
    });
    expect(published.status).toBe(403);
    expect(published.body.details).toContain("'partner'");
  });
});
