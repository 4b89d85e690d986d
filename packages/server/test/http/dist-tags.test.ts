import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, storeSnapshot, type TestRegistry } from '@pkg/testkit';

const NAME = 'com.acme.tags';
let registry: TestRegistry;
let alice: string;
let bob: string;
const tagUrl = (tag: string, name = NAME) => `${registry.url}/-/package/${name}/dist-tags/${encodeURIComponent(tag)}`;
const putTag = (tag: string, body: unknown, token: string | null = alice) =>
  request(tagUrl(tag), {
    method: 'PUT',
    token: token ?? undefined,
    rawBody: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

beforeAll(async () => {
  registry = await startRegistry();
  alice = await loginUser(registry.url, 'alice');
  bob = await loginUser(registry.url, 'bob');
  for (const version of ['1.0.0', '1.1.0', '2.0.0-beta.1']) {
    const res = await publishVersion(registry.url, alice, NAME, version, {
      tag: version.includes('beta') ? 'next' : 'latest',
      manifest: { description: `version ${version}` },
    });
    expect(res.status).toBe(201);
  }
});
afterAll(async () => {
  await registry.close();
});

describe('dist-tags', () => {
  it('GET lists the tags', async () => {
    const res = await request(`${registry.url}/-/package/${NAME}/dist-tags`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ latest: '1.1.0', next: '2.0.0-beta.1' });
  });

  it('PUT points a tag at a version (body: a JSON string) and DELETE removes it, each 200 {ok: true}', async () => {
    const put = await putTag('beta', '1.0.0');
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ok: true });
    expect((await request(`${registry.url}/-/package/${NAME}/dist-tags`)).body.beta).toBe('1.0.0');
    expect((await request(`${registry.url}/${NAME}`)).body['dist-tags'].beta).toBe('1.0.0');
    expect((await request(`${registry.url}/${NAME}/beta`)).body.version).toBe('1.0.0');

    const del = await request(tagUrl('beta'), { method: 'DELETE', token: alice });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true });
    expect((await request(`${registry.url}/-/package/${NAME}/dist-tags`)).body).toEqual({
      latest: '1.1.0',
      next: '2.0.0-beta.1',
    });
  });

  it('moving latest moves the top-level fields that mirror it', async () => {
    expect((await putTag('latest', '1.0.0')).status).toBe(200);
    expect((await request(`${registry.url}/${NAME}`)).body.description).toBe('version 1.0.0');
    expect((await putTag('latest', '1.1.0')).status).toBe(200);
    expect((await request(`${registry.url}/${NAME}`)).body.description).toBe('version 1.1.0');
  });

  it.each([
    ['an unknown version', 'beta', '9.9.9', 404, 'NOT_FOUND'],
    ['a body that is not a string', 'beta', { version: '1.0.0' }, 400, 'BAD_REQUEST'],
    ['a number body', 'beta', 1, 400, 'BAD_REQUEST'],
    ['a string that is not a version', 'beta', 'one', 422, 'VALIDATION_ERROR'],
    ['a tag that is a semver range', '1.x', '1.0.0', 422, 'VALIDATION_ERROR'],
    ['a tag that is a version', 'v2', '1.0.0', 422, 'VALIDATION_ERROR'],
    ['a tag with a slash', 'a/b', '1.0.0', 422, 'VALIDATION_ERROR'],
  ])('PUT with %s answers %i and changes nothing', async (_label, tag, body, status, code) => {
    const before = await storeSnapshot(registry, [NAME]);
    const res = await putTag(tag, body);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await storeSnapshot(registry, [NAME])).toEqual(before);
  });

  it('refuses to delete latest (422) and answers 404 for an unknown tag', async () => {
    const before = await storeSnapshot(registry, [NAME]);
    const latest = await request(tagUrl('latest'), { method: 'DELETE', token: alice });
    expect(latest.status).toBe(422);
    expect(latest.body.code).toBe('VALIDATION_ERROR');
    expect((await request(tagUrl('nothing'), { method: 'DELETE', token: alice })).status).toBe(404);
    expect(await storeSnapshot(registry, [NAME])).toEqual(before);
  });

  it('only maintainers change tags: 401 anonymous, 403 others', async () => {
    const before = await storeSnapshot(registry, [NAME]);
    const anonymous = await putTag('beta', '1.0.0', null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Token reason="A valid token is required: log in first"');
    expect((await putTag('beta', '1.0.0', bob)).status).toBe(403);
    expect((await request(tagUrl('next'), { method: 'DELETE', token: bob })).status).toBe(403);
    expect((await request(tagUrl('next'), { method: 'DELETE' })).status).toBe(401);
    expect(await storeSnapshot(registry, [NAME])).toEqual(before);
  });

  it('answers 404 for an unknown package and 422 for an invalid name', async () => {
    expect((await request(`${registry.url}/-/package/com.acme.none/dist-tags`)).status).toBe(404);
    expect((await request(tagUrl('beta', 'com.acme.none'), { method: 'PUT', token: alice, body: '1.0.0' })).status).toBe(404);
    expect((await request(`${registry.url}/-/package/NoDots/dist-tags`)).status).toBe(422);
  });
});
