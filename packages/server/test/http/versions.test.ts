import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, rawRequest, request, startRegistry, type TestRegistry } from '@pkg/testkit';

const NAME = 'com.acme.versions';
let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'alice');
  for (const [version, tag] of [
    ['1.0.0', 'latest'],
    ['1.2.0', 'latest'],
    ['2.0.0-beta.1', 'beta'],
  ] as const) {
    expect((await publishVersion(registry.url, token, NAME, version, { tag })).status).toBe(201);
  }
});
afterAll(async () => {
  await registry.close();
});

describe('GET /<name>/<version>', () => {
  it('returns the version record with an absolute tarball URL', async () => {
    const res = await request(`${registry.url}/${NAME}/1.0.0`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toMatchObject({ name: NAME, version: '1.0.0', _id: `${NAME}@1.0.0` });
    expect(res.body.dist.tarball).toBe(`${registry.url}/${NAME}/-/${NAME}-1.0.0.tgz`);
    expect(res.body.dist.integrity).toMatch(/^sha512-/);
  });

  it('resolves a dist-tag and a semver range', async () => {
    expect((await request(`${registry.url}/${NAME}/latest`)).body.version).toBe('1.2.0');
    expect((await request(`${registry.url}/${NAME}/beta`)).body.version).toBe('2.0.0-beta.1');
    expect((await request(`${registry.url}/${NAME}/${encodeURIComponent('^1.0.0')}`)).body.version).toBe('1.2.0');
  });

  it('answers 304 when the record has not changed', async () => {
    const first = await rawRequest(`${registry.url}/${NAME}/1.0.0`);
    expect(first.headers.etag).toBeDefined();
    const again = await rawRequest(`${registry.url}/${NAME}/1.0.0`, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
  });

  it.each([['9.9.9'], ['nightly'], ['^7.0.0']])('answers 404 NOT_FOUND for %s', async (spec) => {
    const res = await request(`${registry.url}/${NAME}/${encodeURIComponent(spec)}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('answers 404 for a version of an unknown package and 422 for an invalid name', async () => {
    expect((await request(`${registry.url}/com.acme.unknown/1.0.0`)).status).toBe(404);
    expect((await request(`${registry.url}/NotReverseDns/1.0.0`)).status).toBe(422);
  });
});
