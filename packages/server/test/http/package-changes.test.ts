import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, storeSnapshot, type TestRegistry } from '@pkg/testkit';
import type { UntypedJson } from '@pkg/testkit';

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

async function publishAll(name: string, versions: string[]): Promise<void> {
  for (const version of versions) expect((await publishVersion(registry.url, alice, name, version)).status).toBe(201);
}

/** What npm reads before every change. */
async function writeDocument(name: string): Promise<UntypedJson> {
  const res = await request(`${registry.url}/${name}?write=true`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('deprecate (PUT /<name> with the edited document, as npm deprecate sends it)', () => {
  it('sets and clears deprecation messages and ignores every other change to a version', async () => {
    const name = 'com.acme.deprecated';
    await publishAll(name, ['1.0.0', '2.0.0']);
    const doc = await writeDocument(name);
    doc.versions['1.0.0'].deprecated = 'Use 2.x';
    doc.versions['1.0.0'].description = 'tampered';
    doc.versions['1.0.0'].dist.integrity = 'sha512-AAAA';
    doc.description = 'tampered too';
    const res = await request(`${registry.url}/${name}`, { method: 'PUT', token: alice, body: doc });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, id: name, rev: expect.stringMatching(/^3-/) });

    const after = (await request(`${registry.url}/${name}`)).body;
    expect(after.versions['1.0.0'].deprecated).toBe('Use 2.x');
    expect(after.versions['2.0.0'].deprecated).toBeUndefined();
    expect(after.versions['1.0.0'].description).toBe(`${name} test package`);
    expect(after.versions['1.0.0'].dist.integrity).not.toBe('sha512-AAAA');
    expect(after.description).toBe(`${name} test package`);
    const abbreviated = (await request(`${registry.url}/${name}`, { headers: { accept: 'application/vnd.npm.install-v1+json' } }))
      .body;
    expect(abbreviated.versions['1.0.0'].deprecated).toBe('Use 2.x');

    const again = await writeDocument(name);
    again.versions['1.0.0'].deprecated = '';
    expect((await request(`${registry.url}/${name}`, { method: 'PUT', token: alice, body: again })).status).toBe(200);
    expect((await request(`${registry.url}/${name}/1.0.0`)).body.deprecated).toBeUndefined();
  });

  it('refuses non-maintainers (403), anonymous callers (401) and unknown packages (404), changing nothing', async () => {
    const name = 'com.acme.deprecate-guarded';
    await publishAll(name, ['1.0.0']);
    const doc = await writeDocument(name);
    doc.versions['1.0.0'].deprecated = 'nope';
    const before = await storeSnapshot(registry, [name]);
    expect((await request(`${registry.url}/${name}`, { method: 'PUT', token: bob, body: doc })).status).toBe(403);
    expect((await request(`${registry.url}/${name}`, { method: 'PUT', body: doc })).status).toBe(401);
    const unknown = await request(`${registry.url}/com.acme.nowhere`, {
      method: 'PUT',
      token: alice,
      body: { ...doc, _id: 'com.acme.nowhere', name: 'com.acme.nowhere' },
    });
    expect(unknown.status).toBe(404);
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it.each([
    ['a deprecation that is not a string', { versions: { '1.0.0': { deprecated: 5 } } }],
    ['versions that are not an object', { versions: ['1.0.0'] }],
    ['a version record that is not an object', { versions: { '1.0.0': 'deprecated' } }],
    ['a name that is not the URL name', { name: 'com.acme.other' }],
  ])('answers 400 BAD_REQUEST to %s', async (_label, body) => {
    const name = 'com.acme.deprecate-types';
    if (!(await registry.storage.packages.package('', name).read())) await publishAll(name, ['1.0.0']);
    const before = await storeSnapshot(registry, [name]);
    const res = await request(`${registry.url}/${name}`, { method: 'PUT', token: alice, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });
});

describe('owners (PUT /<name>/-rev/<rev> with maintainers, as npm owner sends it)', () => {
  const name = 'com.acme.owners';
  const setOwners = async (token: string, names: string[]) => {
    const doc = (await request(`${registry.url}/${name}`)).body;
    return request(`${registry.url}/${name}/-rev/${encodeURIComponent(doc._rev)}`, {
      method: 'PUT',
      token,
      body: { _id: doc._id, _rev: doc._rev, maintainers: names.map((n) => ({ name: n, email: `${n}@example.com` })) },
    });
  };

  it('adds an existing user, who may then publish', async () => {
    await publishAll(name, ['1.0.0']);
    const res = await setOwners(alice, ['alice', 'bob']);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, id: name });
    const doc = (await request(`${registry.url}/${name}`)).body;
    expect(doc.maintainers).toEqual([
      { name: 'alice', email: 'alice@example.com' },
      { name: 'bob', email: 'bob@example.com' },
    ]);
    expect((await publishVersion(registry.url, bob, name, '1.1.0')).status).toBe(201);
  });

  it('answers 404 when the new owner does not exist', async () => {
    const before = await storeSnapshot(registry, [name]);
    const res = await setOwners(alice, ['alice', 'bob', 'nobody']);
    expect(res.status).toBe(404);
    expect(res.body.details).toContain('nobody');
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('removes an owner, who then gets 403; the last owner cannot be removed (422)', async () => {
    expect((await setOwners(bob, ['bob'])).status).toBe(200);
    expect((await publishVersion(registry.url, alice, name, '1.2.0')).status).toBe(403);
    const before = await storeSnapshot(registry, [name]);
    const res = await setOwners(bob, []);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect((await setOwners(alice, ['alice'])).status).toBe(403);
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('answers 400 to maintainers of the wrong shape', async () => {
    const doc = (await request(`${registry.url}/${name}`)).body;
    for (const maintainers of ['bob', [{ email: 'x@example.com' }], [42]]) {
      const res = await request(`${registry.url}/${name}/-rev/${doc._rev}`, { method: 'PUT', token: bob, body: { maintainers } });
      expect(res.status).toBe(400);
    }
  });
});

describe('unpublish one version (PUT /<name>/-rev/<rev> then DELETE /<name>/-/<file>/-rev/<rev>, as npm does)', () => {
  const name = 'com.acme.unpublish-one';

  it('removes the version, repairs latest, deletes its tarball, and keeps the number used', async () => {
    await publishAll(name, ['1.0.0', '1.1.0']);
    const doc = await writeDocument(name);
    delete doc.versions['1.1.0'];
    delete doc['dist-tags'].latest;
    const put = await request(`${registry.url}/${name}/-rev/${doc._rev}`, { method: 'PUT', token: alice, body: doc });
    expect(put.status).toBe(200);
    const fresh = await writeDocument(name);
    const del = await request(`${registry.url}/${name}/-/${name}-1.1.0.tgz/-rev/${fresh._rev}`, {
      method: 'DELETE',
      token: alice,
    });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true });

    const after = (await request(`${registry.url}/${name}`)).body;
    expect(Object.keys(after.versions)).toEqual(['1.0.0']);
    expect(after['dist-tags']).toEqual({ latest: '1.0.0' });
    expect(after.time['1.1.0']).toBeDefined();
    expect((await request(`${registry.url}/${name}/-/${name}-1.1.0.tgz`)).status).toBe(404);
    expect(await registry.storage.blobs.stat(`_global/${name}/${name}-1.1.0.tgz`)).toBeUndefined();

    const republish = await publishVersion(registry.url, alice, name, '1.1.0');
    expect(republish.status).toBe(409);
    expect(republish.body.details).toMatch(/never be used again/);
  });

  it('refuses a removal based on a stale revision (409) and changes nothing', async () => {
    const stale = await writeDocument(name);
    await publishAll(name, ['1.2.0']);
    delete stale.versions['1.0.0'];
    const before = await storeSnapshot(registry, [name]);
    const res = await request(`${registry.url}/${name}/-rev/${stale._rev}`, { method: 'PUT', token: alice, body: stale });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('refuses to delete the tarball of a version still published (409) or never published (404), and non-maintainers (403)', async () => {
    const doc = await writeDocument(name);
    const before = await storeSnapshot(registry, [name]);
    const path = (file: string) => `${registry.url}/${name}/-/${file}/-rev/${doc._rev}`;
    expect((await request(path(`${name}-1.0.0.tgz`), { method: 'DELETE', token: alice })).status).toBe(409);
    expect((await request(path(`${name}-7.0.0.tgz`), { method: 'DELETE', token: alice })).status).toBe(404);
    expect((await request(path(`${name}-1.1.0.tgz`), { method: 'DELETE', token: bob })).status).toBe(403);
    expect((await request(path(`${name}-1.1.0.tgz`), { method: 'DELETE' })).status).toBe(401);
    expect(await storeSnapshot(registry, [name])).toEqual(before);
  });

  it('checks the rev of DELETE /<name>/-/<file>/-rev/<rev> like the other revisioned writes (409 when stale)', async () => {
    await publishAll(name, ['1.3.0']);
    const doc = await writeDocument(name);
    delete doc.versions['1.3.0'];
    const put = await request(`${registry.url}/${name}/-rev/${doc._rev}`, { method: 'PUT', token: alice, body: doc });
    expect(put.status).toBe(200);
    const file = `${registry.url}/${name}/-/${name}-1.3.0.tgz`;
    const before = await storeSnapshot(registry, [name]);
    for (const rev of [doc._rev, '99-0123456789abcdef0123456789abcdef', 'not-a-rev']) {
      const stale = await request(`${file}/-rev/${encodeURIComponent(rev)}`, { method: 'DELETE', token: alice });
      expect(stale.status).toBe(409);
      expect(stale.body.code).toBe('CONFLICT');
    }
    expect(await storeSnapshot(registry, [name])).toEqual(before);
    const current = await request(`${file}/-rev/${put.body.rev}`, { method: 'DELETE', token: alice });
    expect(current.status).toBe(200);
  });
});

describe('unpublish a whole package (DELETE /<name>/-rev/<rev>)', () => {
  const name = 'com.acme.unpublish-all';

  it('leaves a tombstone: reads are 404, tarballs are gone, versions can never be published again', async () => {
    await publishAll(name, ['1.0.0', '1.1.0']);
    const doc = await writeDocument(name);
    expect((await request(`${registry.url}/${name}/-rev/${doc._rev}`, { method: 'DELETE', token: bob })).status).toBe(403);
    expect((await request(`${registry.url}/${name}/-rev/1-stale`, { method: 'DELETE', token: alice })).status).toBe(409);
    const res = await request(`${registry.url}/${name}/-rev/${doc._rev}`, { method: 'DELETE', token: alice });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });

    expect((await request(`${registry.url}/${name}`)).status).toBe(404);
    expect((await request(`${registry.url}/${name}?write=true`)).status).toBe(404);
    expect((await request(`${registry.url}/${name}/1.0.0`)).status).toBe(404);
    expect((await request(`${registry.url}/${name}/-/${name}-1.0.0.tgz`)).status).toBe(404);
    expect((await request(`${registry.url}/-/package/${name}/dist-tags`)).status).toBe(404);
    const blobs = (await storeSnapshot(registry, [])).blobs;
    expect(Object.keys(blobs).filter((key) => key.includes(`/${name}/`))).toEqual([]);

    expect((await publishVersion(registry.url, alice, name, '1.0.0')).status).toBe(409);
    expect((await publishVersion(registry.url, bob, name, '3.0.0')).status).toBe(403);
    expect((await request(`${registry.url}/${name}/-rev/${doc._rev}`, { method: 'DELETE', token: alice })).status).toBe(404);
  });

  it('comes back when a former maintainer publishes a new version', async () => {
    expect((await publishVersion(registry.url, alice, name, '2.0.0')).status).toBe(201);
    const doc = (await request(`${registry.url}/${name}`)).body;
    expect(Object.keys(doc.versions)).toEqual(['2.0.0']);
    expect(doc['dist-tags']).toEqual({ latest: '2.0.0' });
  });
});
