import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTarball,
  loginUser,
  publishBody,
  provenanceBundle,
  publishVersion,
  rawRequest,
  request,
  sha512Integrity,
  startRegistry,
  storeSnapshot,
  type TestRegistry,
} from '@pkg/testkit';

let registry: TestRegistry;
let alice: string;
let bob: string;
beforeAll(async () => {
  registry = await startRegistry();
  alice = await loginUser(registry.url, 'alice');
  bob = await loginUser(registry.url, 'bob');
});
afterAll(async () => {
  await registry.close();
});

describe('PUT /<name>: publish', () => {
  it('stores the version and answers 201 {ok, id, rev}; the publisher becomes the maintainer', async () => {
    const name = 'com.acme.first';
    const { body, tarball } = publishBody(name, '1.0.0', {
      manifest: { unity: '2022.3', unityRelease: '10f1' },
      files: [{ path: 'Editor/tool.cs', content: 'class Tool {}' }],
    });
    const res = await request(`${registry.url}/${name}`, { method: 'PUT', token: alice, body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ok: true, id: name, rev: expect.stringMatching(/^1-[0-9a-f]{32}$/) });

    const stored = (await registry.storage.packages.package('', name).read())!;
    expect(stored.publishedVersions).toEqual(['1.0.0']);
    const doc = stored.document;
    expect(doc._rev).toBe(res.body.rev);
    expect(doc.maintainers).toEqual([{ name: 'alice', email: 'alice@example.com' }]);
    expect(doc['dist-tags']).toEqual({ latest: '1.0.0' });
    expect(doc.time['1.0.0']).toBe(doc.time.modified);
    expect(doc.time.created).toBe(doc.time.modified);
    // Stored relative: the public URL is applied when the document is rendered.
    expect(doc.versions['1.0.0']!.dist).toEqual({
      integrity: sha512Integrity(tarball),
      shasum: expect.stringMatching(/^[0-9a-f]{40}$/),
      tarball: `${name}/-/${name}-1.0.0.tgz`,
      fileCount: 2,
      unpackedSize: expect.any(Number),
      // registry-signatures.test.ts checks it as npm does
      signatures: [{ keyid: expect.stringMatching(/^SHA256:/), sig: expect.any(String) }],
    });
    expect(doc.versions['1.0.0']).toMatchObject({ unity: '2022.3', unityRelease: '10f1' });
    const blob = await registry.storage.blobs.stat(`_global/${name}/${name}-1.0.0.tgz`);
    expect(blob?.size).toBe(tarball.length);
  });

  it('adds versions: latest follows the default tag, other tags leave it alone', async () => {
    const name = 'com.acme.second';
    expect((await publishVersion(registry.url, alice, name, '1.0.0', { manifest: { description: 'one' } })).status).toBe(201);
    expect((await publishVersion(registry.url, alice, name, '1.1.0', { manifest: { description: 'one-one' } })).status).toBe(201);
    expect(
      (await publishVersion(registry.url, alice, name, '2.0.0-beta.1', { tag: 'beta', manifest: { description: 'beta' } }))
        .status,
    ).toBe(201);
    const doc = (await request(`${registry.url}/${name}`)).body;
    expect(doc['dist-tags']).toEqual({ latest: '1.1.0', beta: '2.0.0-beta.1' });
    expect(doc.description).toBe('one-one');
    expect(Object.keys(doc.time).sort()).toEqual(['1.0.0', '1.1.0', '2.0.0-beta.1', 'created', 'modified']);
    expect(doc._rev).toMatch(/^3-/);
  });

  it('answers a retry of the same version with the same bytes 200 and changes nothing', async () => {
    const name = 'com.acme.retry';
    const { body } = publishBody(name, '1.0.0');
    const first = await request(`${registry.url}/${name}`, { method: 'PUT', token: alice, body });
    expect(first.status).toBe(201);
    const before = await storeSnapshot(registry, [name]);
    const again = await request(`${registry.url}/${name}`, { method: 'PUT', token: alice, body });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ok: true, id: name, rev: first.body.rev });
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('refuses the same version with different bytes: 409 CONFLICT, the stored version unchanged', async () => {
    const name = 'com.acme.immutable';
    expect((await publishVersion(registry.url, alice, name, '1.0.0')).status).toBe(201);
    const before = await storeSnapshot(registry, [name]);
    const res = await publishVersion(registry.url, alice, name, '1.0.0', { manifest: { description: 'changed' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('answers 403 FORBIDDEN to a publisher who is not a maintainer', async () => {
    const name = 'com.acme.owned';
    expect((await publishVersion(registry.url, alice, name, '1.0.0')).status).toBe(201);
    const before = await storeSnapshot(registry, [name]);
    const res = await publishVersion(registry.url, bob, name, '1.1.0');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('answers 401 with WWW-Authenticate without a valid token, and 403 to a read-only token', async () => {
    const name = 'com.acme.anonymous';
    for (const token of [undefined, 'invalid-token']) {
      const res = await publishVersion(registry.url, token as string, name, '1.0.0');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toMatch(
        /^Token reason="(A valid token is required: log in first|This token is not valid here: .*)"$/,
      );
    }
    const readonly = await registry.services.auth.issueToken('', 'alice', true);
    const res = await publishVersion(registry.url, readonly, name, '1.0.0');
    expect(res.status).toBe(403);
    expect(await registry.storage.packages.package('', name).read()).toBeUndefined();
  });

  it('accepts and keeps a .sigstore provenance attachment', async () => {
    const name = 'com.acme.signed';
    const { body, tarball } = publishBody(name, '1.0.0');
    const bundle = await provenanceBundle(name, '1.0.0', tarball);
    (body._attachments as Record<string, unknown>)[`${name}-1.0.0.sigstore`] = {
      content_type: 'application/vnd.dev.sigstore.bundle+json;version=0.2',
      data: bundle,
      length: bundle.length,
    };
    expect((await request(`${registry.url}/${name}`, { method: 'PUT', token: alice, body })).status).toBe(201);
    const res = await rawRequest(`${registry.url}/${name}/-/${name}-1.0.0.sigstore`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(bundle);
  });

  it("publishes the attached version of npm's merged retry body (the whole document plus the new version)", async () => {
    const name = 'com.acme.merged';
    expect((await publishVersion(registry.url, alice, name, '1.0.0')).status).toBe(201);
    const current = (await request(`${registry.url}/${name}?write=true`)).body;
    const { body } = publishBody(name, '1.1.0');
    const merged = {
      ...current,
      versions: { ...current.versions, ...body.versions },
      'dist-tags': { ...current['dist-tags'], ...body['dist-tags'] },
      _attachments: body._attachments,
    };
    const res = await request(`${registry.url}/${name}`, { method: 'PUT', token: alice, body: merged });
    expect(res.status).toBe(201);
    const doc = (await request(`${registry.url}/${name}`)).body;
    expect(Object.keys(doc.versions)).toEqual(['1.0.0', '1.1.0']);
    expect(doc['dist-tags'].latest).toBe('1.1.0');
  });

  it('accepts a gzip-compressed request body', async () => {
    const name = 'com.acme.gzipped';
    const { body } = publishBody(name, '1.0.0');
    const res = await rawRequest(`${registry.url}/${name}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${alice}` },
      body: gzipSync(JSON.stringify(body)),
    });
    expect(res.status).toBe(201);
    expect((await request(`${registry.url}/${name}/1.0.0`)).status).toBe(200);
  });

  it('lands every one of many concurrent publishes of different versions of one package', async () => {
    const name = 'com.acme.concurrent';
    expect((await publishVersion(registry.url, alice, name, '0.0.1')).status).toBe(201);
    const versions = Array.from({ length: 12 }, (_, i) => `1.${i}.0`);
    const results = await Promise.all(
      versions.map((v) => publishVersion(registry.url, alice, name, v, { tag: `t${v.replace(/\./g, '-')}` })),
    );
    expect(results.map((r) => r.status)).toEqual(versions.map(() => 201));
    const doc = (await request(`${registry.url}/${name}`)).body;
    expect(Object.keys(doc.versions).sort()).toEqual(['0.0.1', ...versions].sort());
    for (const v of versions) expect(doc.time[v]).toBeDefined();
    const stored = (await registry.storage.packages.package('', name).read())!;
    expect(stored.publishedVersions.sort()).toEqual(['0.0.1', ...versions].sort());
    expect(stored.document._rev).toMatch(/^13-/);
    for (const v of versions) {
      const tgz = await fetch(doc.versions[v].dist.tarball);
      expect(sha512Integrity(Buffer.from(await tgz.arrayBuffer()))).toBe(doc.versions[v].dist.integrity);
    }
  });

  it('accepts a tarball whose files live beside package.json, and counts them', async () => {
    const name = 'com.acme.counted';
    const tarball = buildTarball({ name, version: '1.0.0' }, [
      { path: 'a.txt', content: 'aaaa' },
      { path: 'b/c.txt', content: 'cc' },
    ]);
    const res = await publishVersion(registry.url, alice, name, '1.0.0', { tarball, manifest: {} });
    expect(res.status).toBe(201);
    const dist = (await request(`${registry.url}/${name}/1.0.0`)).body.dist;
    expect(dist.fileCount).toBe(3);
    expect(dist.unpackedSize).toBe(JSON.stringify({ name, version: '1.0.0' }, null, 2).length + 6);
  });
});
