/**
 * A tenant deleted and created again under the same name is another tenant: no node serves it
 * anything the deleted one left in a cache (issue 26). Two registries share one storage (on
 * the scale-out profile: PostgreSQL, S3 and Redis), an administrator's storage (the admin command
 * line, another connection) deletes and re-creates the tenant, and every kind of answer the
 * nodes keep is asked again: documents (full, abbreviated, compressed, HEAD, 404s), version
 * records, tarballs, search, whoami and token lookups, the tenant's own settings (read access),
 * and the rate-limit counters (shared in Redis on scale-out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, TenantAdmin, type Storage } from '@pkg/server';
import {
  loginOn,
  publishBody,
  registryHost,
  startRegistry,
  type HostResponse,
  type RegistryHost,
  type TestRegistry,
} from '@pkg/testkit';

const DOMAIN = 'registry.test';
const SECRET = 'com.secret.project';
const LATER = 'com.secret.later';
const NPM_ACCEPT = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*';
/** Words only the deleted tenant's documents hold: no answer of the new one may contain them. */
const CONFIDENTIAL = 'confidential-roadmap';
const PUBLISHER_EMAIL = 'first-owner@leak.example';

let nodeA: TestRegistry;
let nodeB: TestRegistry;
/** The administrator's own connection to the shared storage, as `pkg-registry tenant …` opens it. */
let adminStorage: Storage;
let admin: TenantAdmin;
let probes = 0;

beforeAll(async () => {
  nodeA = await startRegistry({ settings: { registryDomain: DOMAIN } });
  nodeB = await startRegistry({ settings: { registryDomain: DOMAIN }, dataDir: nodeA.dataDir });
  adminStorage = await createStorage(nodeA.config);
  admin = new TenantAdmin(adminStorage);
});
afterAll(async () => {
  await adminStorage?.close();
  await nodeB?.close();
  await nodeA?.close();
});

const leakOn = (node: TestRegistry): RegistryHost => registryHost(node.url, `leak.${DOMAIN}`);
const nodes = (): [string, TestRegistry][] => [
  ['node A', nodeA],
  ['node B', nodeB],
];

/**
 * Waits until `node` serves the tenant's current settings: a name never asked before (so no
 * cache holds it) answers `status` anonymously (401 on a token-only registry, else 404). The
 * admin's change reaches a node on its next request (SQLite) or over the bus (scale-out).
 */
async function seesCurrentTenant(node: TestRegistry, status: 401 | 404): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const res = await leakOn(node).request(`/com.probe.p${probes++}`);
    if (res.status === status) return;
    if (Date.now() > deadline) throw new Error(`the node still answers ${res.status} for the tenant's settings`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function expectNothingOfTheDeleted(res: HostResponse): void {
  expect(res.text).not.toContain(CONFIDENTIAL);
  expect(res.text).not.toContain(PUBLISHER_EMAIL);
}

/** Publishes `name@version` on `on` with a description that only this incarnation holds. */
async function publish(on: RegistryHost, token: string, name: string, version: string, description: string): Promise<void> {
  const { body } = publishBody(name, version, { manifest: { description } });
  const res = await on.request(`/${name}`, { method: 'PUT', token, body });
  expect(res.status, res.text).toBe(201);
}

/** Every cached read of `name` a node answers, as a client makes it. */
function readsOf(name: string): { label: string; path: string; method?: string; headers?: Record<string, string> }[] {
  return [
    { label: 'full document', path: `/${name}` },
    { label: 'abbreviated document', path: `/${name}`, headers: { accept: NPM_ACCEPT } },
    { label: 'gzip document', path: `/${name}`, headers: { 'accept-encoding': 'gzip' } },
    { label: 'HEAD', path: `/${name}`, method: 'HEAD' },
    { label: 'version record', path: `/${name}/1.0.0` },
    { label: 'tarball', path: `/${name}/-/${name}-1.0.0.tgz` },
  ];
}

describe('a tenant deleted and created again under the same name', () => {
  let firstToken: string;
  let secondToken: string;

  it('first incarnation (token-only): its document, tarball, search and token are cached on both nodes', async () => {
    await admin.create('leak', { readAccess: 'token' });
    for (const [, node] of nodes()) await seesCurrentTenant(node, 401);
    firstToken = await loginOn(leakOn(nodeA), 'first-owner', 'first-password', PUBLISHER_EMAIL);
    await publish(leakOn(nodeA), firstToken, SECRET, '1.0.0', `The ${CONFIDENTIAL} of the studio`);
    for (const [label, node] of nodes()) {
      const on = leakOn(node);
      for (const read of readsOf(SECRET)) {
        const init = {
          token: firstToken,
          ...(read.method ? { method: read.method } : {}),
          ...(read.headers ? { headers: read.headers } : {}),
        };
        // Twice: the second answer comes from the caches.
        for (let i = 0; i < 2; i++) expect((await on.request(read.path, init)).status, `${label} ${read.label}`).toBe(200);
      }
      expect((await on.request(`/${SECRET}`)).status, `${label} anonymous`).toBe(401);
      const found = await on.request(`/-/v1/search?text=${CONFIDENTIAL}`, { token: firstToken });
      expect(found.body.objects.map((o: { package: { name: string } }) => o.package.name)).toEqual([SECRET]);
      expect((await on.request('/-/whoami', { token: firstToken })).status).toBe(200);
      // A 404 remembered for a name the next incarnation will publish.
      for (let i = 0; i < 2; i++) expect((await on.request(`/${LATER}`, { token: firstToken })).status).toBe(404);
    }
  });

  it('second incarnation (anonymous reads): nothing of the first on either node, on any read', async () => {
    await admin.delete('leak');
    await admin.create('leak', {});
    for (const [label, node] of nodes()) {
      await seesCurrentTenant(node, 404);
      const on = leakOn(node);
      for (const read of readsOf(SECRET)) {
        for (const token of [undefined, firstToken]) {
          const res = await on.request(read.path, {
            ...(token ? { token } : {}),
            ...(read.method ? { method: read.method } : {}),
            ...(read.headers ? { headers: read.headers } : {}),
          });
          expect(res.status, `${label} ${read.label}${token ? ' with the old token' : ''}`).toBe(404);
          expectNothingOfTheDeleted(res);
        }
      }
      const search = await on.request(`/-/v1/search?text=${CONFIDENTIAL}`);
      expect(search.status).toBe(200);
      expect(search.body.total).toBe(0);
      expectNothingOfTheDeleted(search);
      const all = await on.request('/-/all');
      expectNothingOfTheDeleted(all);
      // The deleted tenant's token is nobody's here.
      expect((await on.request('/-/whoami', { token: firstToken })).status, label).toBe(401);
    }
    // The first owner's name is free: signing up again makes a new account, with a new password.
    secondToken = await loginOn(leakOn(nodeB), 'first-owner', 'another-password', 'second-owner@leak.example');
    await publish(leakOn(nodeB), secondToken, LATER, '1.0.0', 'public tool of the second incarnation');
    for (const [label, node] of nodes()) {
      const later = await leakOn(node).request(`/${LATER}`);
      expect(later.status, `${label}: the 404 remembered by the first incarnation`).toBe(200);
      expect(later.body.description).toBe('public tool of the second incarnation');
      const who = await leakOn(node).request('/-/whoami', { token: secondToken });
      expect(who.body).toMatchObject({ username: 'first-owner', email: 'second-owner@leak.example' });
      // Cached anonymously for the next incarnation's test.
      for (let i = 0; i < 2; i++) expect((await leakOn(node).request(`/${LATER}/-/${LATER}-1.0.0.tgz`)).status).toBe(200);
    }
  });

  it('third incarnation (token-only again): its read access holds on both nodes, whatever was cached anonymously', async () => {
    await admin.delete('leak');
    await admin.create('leak', { readAccess: 'token' });
    for (const [label, node] of nodes()) {
      await seesCurrentTenant(node, 401);
      const on = leakOn(node);
      for (const read of [...readsOf(LATER), ...readsOf(SECRET), { label: 'search', path: '/-/v1/search?text=tool' }]) {
        const res = await on.request(read.path, {
          ...(read.method ? { method: read.method } : {}),
          ...(read.headers ? { headers: read.headers } : {}),
        });
        expect(res.status, `${label} anonymous ${read.label}`).toBe(401);
      }
      for (const token of [firstToken, secondToken]) {
        expect((await on.request(`/${LATER}`, { token })).status, `${label}: a token of a deleted incarnation`).toBe(401);
        expect((await on.request('/-/whoami', { token })).status).toBe(401);
      }
    }
    const thirdToken = await loginOn(leakOn(nodeA), 'third-owner');
    for (const [label, node] of nodes()) {
      const on = leakOn(node);
      for (const name of [SECRET, LATER]) expect((await on.request(`/${name}`, { token: thirdToken })).status, label).toBe(404);
      const search = await on.request('/-/v1/search?text=com', { token: thirdToken });
      expect(search.body.total, label).toBe(0);
    }
  });

  it('leaves no row and no tarball of a deleted incarnation in the shared storage', async () => {
    await admin.delete('leak');
    const { registry, packages, downloadCounts, blobs } = adminStorage;
    expect(await registry.users.list('leak')).toEqual([]);
    expect(await registry.tokens.list('leak')).toEqual([]);
    expect(await packages.listPackageNames('leak', { includeUnpublished: true })).toEqual([]);
    await nodeA.services.downloads.flush();
    await nodeB.services.downloads.flush();
    expect(await downloadCounts.list('leak')).toEqual([]);
    const left: string[] = [];
    for await (const blob of blobs.list()) if (blob.key.startsWith('leak/')) left.push(blob.key);
    expect(left).toEqual([]);
  });
});

describe('rate-limit counters of a tenant created again', () => {
  it('start from zero: the deleted tenant’s used-up limit is not the new one’s', async () => {
    await admin.create('limited', { rateLimitAnonymous: 3 });
    const on = registryHost(nodeA.url, `limited.${DOMAIN}`);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await on.request(`/com.limited.p${i}`)).status);
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    await admin.delete('limited');
    await admin.create('limited', { rateLimitAnonymous: 3 });
    const deadline = Date.now() + 5000;
    let status = 0;
    // The node answers 429 until it has read the new tenant (a moment on scale-out), then counts anew.
    while ((status = (await on.request('/com.limited.after')).status) === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(404);
    const remaining = Number((await on.request('/com.limited.after')).headers.get('x-ratelimit-remaining'));
    expect(remaining).toBe(1);
  });
});
