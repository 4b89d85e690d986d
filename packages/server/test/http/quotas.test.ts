/**
 * Quotas per registry (issue 31 item 3): a publish past a tenant's byte or package quota is
 * refused with QUOTA_EXCEEDED naming the quota and the usage, and nothing of it is stored.
 * Two nodes share one storage (on the scale-out profile: PostgreSQL, S3 and Redis): the usage
 * each node checks is the one the shared database keeps, so publishes on both count together.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, TenantAdmin, type Storage } from '@pkg/server';
import {
  buildTarball,
  loginOn,
  publishBody,
  registryHost,
  startRegistry,
  type RegistryHost,
  type TestRegistry,
} from '@pkg/testkit';

const DOMAIN = 'registry.test';

let nodeA: TestRegistry;
let nodeB: TestRegistry;
let adminStorage: Storage;
let admin: TenantAdmin;

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

const on = (node: TestRegistry, tenant: string): RegistryHost => registryHost(node.url, `${tenant}.${DOMAIN}`);

/** A tarball of about `size` bytes that gzip cannot shrink. */
function tarballOf(name: string, version: string, size: number): Buffer {
  return buildTarball({ name, version }, [{ path: 'noise.bin', content: randomBytes(size) }]);
}

function publishOf(name: string, version: string, tarball: Buffer) {
  return publishBody(name, version, { tarball }).body;
}

/** Blob keys the storage holds for a package of a tenant. */
async function blobsOf(tenant: string, name: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of adminStorage.blobs.list()) if (blob.key.startsWith(`${tenant}/${name}/`)) keys.push(blob.key);
  return keys;
}

/** Unpublishes a whole package, as `npm unpublish --force` does. */
async function unpublish(host: RegistryHost, token: string, name: string): Promise<void> {
  const doc = await host.request(`/${name}?write=true`, { token });
  const res = await host.request(`/${name}/-rev/${doc.body._rev}`, { method: 'DELETE', token });
  expect(res.status, res.text).toBe(200);
}

/** Waits until a node serves a tenant created a moment ago by the admin (another connection). */
async function served(tenant: string): Promise<void> {
  for (const node of [nodeA, nodeB]) {
    const deadline = Date.now() + 5000;
    while ((await on(node, tenant).request('/-/ping')).status !== 200) {
      if (Date.now() > deadline) throw new Error(`${tenant} is not served`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe('package quota', () => {
  it('refuses a new package past the quota on either node, names quota and usage, stores nothing', async () => {
    await admin.create('pkgs', { quotaPackages: 2 });
    await served('pkgs');
    const token = await loginOn(on(nodeA, 'pkgs'), 'ada');
    const small = (name: string, version = '1.0.0') => publishOf(name, version, tarballOf(name, version, 100));
    expect((await on(nodeA, 'pkgs').request('/com.q.one', { method: 'PUT', token, body: small('com.q.one') })).status).toBe(201);
    expect((await on(nodeB, 'pkgs').request('/com.q.two', { method: 'PUT', token, body: small('com.q.two') })).status).toBe(201);

    const refused = await on(nodeA, 'pkgs').request('/com.q.three', { method: 'PUT', token, body: small('com.q.three') });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('QUOTA_EXCEEDED');
    expect(refused.body.error).toMatch(/^The registry 'pkgs' has reached its quota of 2 packages \(2 in use\)/);
    expect((await on(nodeB, 'pkgs').request('/com.q.three', { token })).status).toBe(404);
    expect(await blobsOf('pkgs', 'com.q.three')).toEqual([]);

    // New versions of existing packages are not new packages.
    expect(
      (await on(nodeB, 'pkgs').request('/com.q.one', { method: 'PUT', token, body: small('com.q.one', '1.1.0') })).status,
    ).toBe(201);
    // An unpublished package frees its place.
    await unpublish(on(nodeA, 'pkgs'), token, 'com.q.two');
    expect((await on(nodeB, 'pkgs').request('/com.q.three', { method: 'PUT', token, body: small('com.q.three') })).status).toBe(
      201,
    );
  });
});

describe('byte quota', () => {
  let token: string;
  let first: Buffer;
  const quota = 40_000;

  beforeAll(async () => {
    first = tarballOf('com.b.first', '1.0.0', 25_000);
    await admin.create('bytes', { quotaBytes: quota });
    await served('bytes');
    token = await loginOn(on(nodeA, 'bytes'), 'ada');
    const res = await on(nodeA, 'bytes').request('/com.b.first', {
      method: 'PUT',
      token,
      body: publishOf('com.b.first', '1.0.0', first),
    });
    expect(res.status, res.text).toBe(201);
    expect(await adminStorage.usage.usage('bytes')).toEqual({ bytes: first.length, files: 1, packages: 1 });
  });

  it('refuses a tarball past what is left while it streams in, naming quota and usage, and keeps nothing', async () => {
    const big = tarballOf('com.b.big', '1.0.0', 20_000);
    const res = await on(nodeB, 'bytes').request('/com.b.big', {
      method: 'PUT',
      token,
      body: publishOf('com.b.big', '1.0.0', big),
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('QUOTA_EXCEEDED');
    expect(res.body.error).toMatch(
      new RegExp(
        `^The registry 'bytes' has a storage quota of ${quota} bytes \\(39\\.1 KiB\\); ${first.length} bytes \\(.*\\) are in use and this publish adds \\d+`,
      ),
    );
    expect((await on(nodeA, 'bytes').request('/com.b.big', { token })).status).toBe(404);
    expect(await blobsOf('bytes', 'com.b.big')).toEqual([]);
    expect((await adminStorage.usage.usage('bytes')).bytes).toBe(first.length);
  });

  it('lets exactly one of two publishes through when only one fits, one on each node', async () => {
    const left = quota - first.length;
    const size = Math.floor(left * 0.6);
    const bodies = ['com.b.race1', 'com.b.race2'].map(
      (name) => [name, publishOf(name, '1.0.0', tarballOf(name, '1.0.0', size))] as const,
    );
    const results = await Promise.all(
      bodies.map(([name, body], i) => on(i === 0 ? nodeA : nodeB, 'bytes').request(`/${name}`, { method: 'PUT', token, body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
    expect(results.find((r) => r.status === 403)!.body.code).toBe('QUOTA_EXCEEDED');
    const usage = await adminStorage.usage.usage('bytes');
    expect(usage.bytes).toBeLessThanOrEqual(quota);
    expect(usage.packages).toBe(2);
  });

  it('refuses any publish of a full registry before its tarball is stored, and takes one again after a removal', async () => {
    const filling = tarballOf('com.f.fill', '1.0.0', 5_000);
    // A quota of exactly one tarball: once it is in, the registry is full.
    await admin.create('full', { quotaBytes: filling.length });
    await served('full');
    const fullToken = await loginOn(on(nodeA, 'full'), 'ada');
    const put = (node: TestRegistry, name: string, tarball: Buffer) =>
      on(node, 'full').request(`/${name}`, { method: 'PUT', token: fullToken, body: publishOf(name, '1.0.0', tarball) });
    expect((await put(nodeA, 'com.f.fill', filling)).status).toBe(201);

    const tiny = tarballOf('com.f.tiny', '1.0.0', 10);
    const res = await put(nodeB, 'com.f.tiny', tiny);
    expect(res.status).toBe(403);
    const kib = `${(filling.length / 1024).toFixed(1)} KiB`;
    expect(res.body.error).toBe(
      `The registry 'full' has a storage quota of ${filling.length} bytes (${kib}); ${filling.length} bytes (${kib}) are in use and nothing is left for another tarball: remove old versions, or ask the administrator to raise quotaBytes`,
    );
    expect(await blobsOf('full', 'com.f.tiny')).toEqual([]);
    // npm's retry of a version already there adds nothing: answered as ever, not refused.
    expect((await put(nodeB, 'com.f.fill', filling)).status).toBe(200);

    // The usage falls as versions go: with the package unpublished, the registry takes one again.
    await unpublish(on(nodeB, 'full'), fullToken, 'com.f.fill');
    expect(await adminStorage.usage.usage('full')).toEqual({ bytes: 0, files: 0, packages: 0 });
    expect((await put(nodeA, 'com.f.tiny', tiny)).status).toBe(201);
  });
});

describe('storage figures in /-/metrics', () => {
  it('shows bytes and packages per registry, blobs, and the last collection, the same on both nodes', async () => {
    const expected = await adminStorage.usage.all();
    await adminStorage.usage.recordCollect({
      at: '2026-01-02T03:04:05.000Z',
      orphans: 2,
      temporaryFiles: 1,
      incompleteUploads: 3,
    });
    for (const node of [nodeA, nodeB]) {
      const res = await fetch(`${node.url}/-/metrics`);
      const text = await res.text();
      for (const tenant of ['pkgs', 'bytes']) {
        const usage = expected.get(tenant)!;
        expect(text).toContain(`pkg_registry_storage_bytes{tenant="${tenant}"} ${usage.bytes}`);
        expect(text).toContain(`pkg_registry_storage_packages{tenant="${tenant}"} ${usage.packages}`);
      }
      const blobs = [...expected.values()].reduce((sum, usage) => sum + usage.files, 0);
      expect(text).toContain(`pkg_registry_storage_blobs ${blobs}`);
      expect(text).toContain(
        `pkg_registry_storage_collect_last_timestamp_seconds ${Date.parse('2026-01-02T03:04:05.000Z') / 1000}`,
      );
      expect(text).toContain('pkg_registry_storage_collect_last_removed{kind="incomplete_uploads"} 3');
    }
  });
});
