import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTarball,
  loginUser,
  publishBody,
  publishVersion,
  rawTar,
  rawRequest,
  request,
  startRegistry,
  storeSnapshot,
  type TestRegistry,
} from '@pkg/testkit';
import type { UntypedJson } from '@pkg/testkit';

/**
 * Bad input of every kind must get a clear 4xx with the error shape, and change nothing: the
 * stored documents and the blob store are compared before and after each request.
 */
const NAME = 'com.acme.target';
const MAX_TARBALL = 64 * 1024;
let registry: TestRegistry;
let token: string;

beforeAll(async () => {
  registry = await startRegistry({ settings: { maxTarballSize: MAX_TARBALL } });
  token = await loginUser(registry.url, 'alice');
  expect((await publishVersion(registry.url, token, NAME, '1.0.0')).status).toBe(201);
});
afterAll(async () => {
  await registry.close();
});

type Body = ReturnType<typeof publishBody>['body'];
/** A valid publish body of NAME@1.1.0, changed by `edit`. */
function edited(edit: (body: Body, attachment: { data: string; length: number }) => void, version = '1.1.0'): Body {
  const { body } = publishBody(NAME, version);
  const attachment = Object.values(body._attachments)[0] as { data: string; length: number };
  edit(body, attachment);
  return body;
}
function withTarball(tarball: Buffer): Body {
  return publishBody(NAME, '1.1.0', { tarball }).body;
}
function tarOf(entries: { path: string; content: string }[]): Buffer {
  return gzipSync(rawTar(entries));
}

async function expectUnchanged(send: () => Promise<{ status: number; body: UntypedJson }>, status: number, code: string) {
  const names = [NAME, 'com.acme.fresh'];
  const before = await storeSnapshot(registry, names);
  const res = await send();
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.any(String), code, details: expect.any(String) });
  // npm shows only `error`: it carries the specific reason, not the code's short text.
  expect(res.body.error).toBe(res.body.details);
  expect(res.body.details).not.toMatch(/at .*\.(ts|js):\d+/);
  expect(await storeSnapshot(registry, names)).toEqual(before);
  return res;
}

const put = (body: unknown, name = NAME) => request(`${registry.url}/${name}`, { method: 'PUT', token, body });
const putRaw = (rawBody: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  request(`${registry.url}/${NAME}`, { method: 'PUT', token, rawBody, headers });

describe('publish: malformed requests are 400 BAD_REQUEST', () => {
  it.each([
    ['malformed JSON', () => putRaw('{"name": "com.acme.target", "versions": {')],
    ['an empty body', () => putRaw('')],
    ['a JSON array', () => putRaw('[1, 2, 3]')],
    ['a JSON string', () => putRaw('"com.acme.target"')],
    ['_attachments of the wrong type', () => put(edited((b) => Object.assign(b, { _attachments: 'tarball' })))],
    ['versions of the wrong type', () => put(edited((b) => Object.assign(b, { versions: [] })))],
    ['attachment data that is not a string', () => put(edited((_b, a) => Object.assign(a, { data: 12345 })))],
    ['attachment length that is not a number', () => put(edited((_b, a) => Object.assign(a, { length: '174' })))],
    ['bad base64', () => put(edited((_b, a) => Object.assign(a, { data: `${a.data.slice(0, -4)}!!!!` })))],
    ['dist-tags of the wrong type', () => put(edited((b) => Object.assign(b, { 'dist-tags': ['latest'] })))],
    ['a body name that is not the URL name', () => put(edited((b) => Object.assign(b, { name: 'com.acme.other' })))],
    [
      'a corrupt gzip body',
      () => putRaw(Buffer.from('not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' }),
    ],
  ])('%s', async (_label, send) => {
    await expectUnchanged(send, 400, 'BAD_REQUEST');
  });
});

describe('publish: broken rules are 422 VALIDATION_ERROR', () => {
  it.each([
    ['a length that does not match the data', () => put(edited((_b, a) => Object.assign(a, { length: a.length + 1 })))],
    [
      'a wrong sha512 integrity',
      () =>
        put(
          edited((b) => Object.assign(b.versions['1.1.0']!.dist, { integrity: `sha512-${Buffer.alloc(64).toString('base64')}` })),
        ),
    ],
    [
      'a wrong shasum without integrity',
      () =>
        put(
          edited((b) => {
            const dist = b.versions['1.1.0']!.dist as Record<string, unknown>;
            delete dist.integrity;
            dist.shasum = '0'.repeat(40);
          }),
        ),
    ],
    [
      'neither integrity nor shasum',
      () =>
        put(
          edited((b) => {
            const dist = b.versions['1.1.0']!.dist as Record<string, unknown>;
            delete dist.integrity;
            delete dist.shasum;
          }),
        ),
    ],
    [
      'a tarball whose package.json names another package',
      () => put(withTarball(buildTarball({ name: 'com.acme.other', version: '1.1.0' }))),
    ],
    ['a tarball whose package.json has another version', () => put(withTarball(buildTarball({ name: NAME, version: '9.9.9' })))],
    ['a tarball that is not gzip', () => put(withTarball(Buffer.from('plain bytes, not a tarball')))],
    ['a gzip that is not a tar', () => put(withTarball(gzipSync(Buffer.from('x'.repeat(2000)))))],
    ['a tarball without package/package.json', () => put(withTarball(tarOf([{ path: 'package/index.js', content: '1' }])))],
    [
      'a tarball entry with ..',
      () =>
        put(
          withTarball(
            tarOf([
              { path: 'package/package.json', content: JSON.stringify({ name: NAME, version: '1.1.0' }) },
              { path: 'package/../../evil.sh', content: 'rm -rf /' },
            ]),
          ),
        ),
    ],
    [
      'a tarball entry with an absolute path',
      () =>
        put(
          withTarball(
            tarOf([
              { path: 'package/package.json', content: JSON.stringify({ name: NAME, version: '1.1.0' }) },
              { path: '/etc/cron.d/evil', content: 'x' },
            ]),
          ),
        ),
    ],
    ['a version that is not semver', () => put(publishBody(NAME, '1.1').body)],
    ['a loose version with a v prefix', () => put(publishBody(NAME, 'v1.1.0').body)],
    ['a unity field without a minor version', () => put(publishBody(NAME, '1.1.0', { manifest: { unity: '2021' } }).body)],
    ['a unity field with a patch', () => put(publishBody(NAME, '1.1.0', { manifest: { unity: '2021.3.1f1' } }).body)],
    ['a unity field that is a number', () => put(publishBody(NAME, '1.1.0', { manifest: { unity: 2021.3 } }).body)],
    [
      'a malformed unityRelease',
      () => put(publishBody(NAME, '1.1.0', { manifest: { unity: '2021.3', unityRelease: 'f1' } }).body),
    ],
    ['unityRelease without unity', () => put(publishBody(NAME, '1.1.0', { manifest: { unityRelease: '0f1' } }).body)],
    [
      'an attachment named after another package',
      () =>
        put(
          edited((b) => {
            const attachments = b._attachments as Record<string, unknown>;
            attachments['com.acme.other-1.1.0.tgz'] = attachments[`${NAME}-1.1.0.tgz`];
            delete attachments[`${NAME}-1.1.0.tgz`];
          }),
        ),
    ],
    [
      'an unexpected attachment',
      () => put(edited((b) => Object.assign(b._attachments, { 'notes.txt': { data: 'aGk=', length: 2 } }))),
    ],
    ['no version record for the attachment', () => put(edited((b) => Object.assign(b, { versions: {} })))],
    [
      'a version record naming another version',
      () => put(edited((b) => Object.assign(b.versions['1.1.0']!, { version: '1.2.0' }))),
    ],
    ['a dist-tag that is a semver range', () => put(edited((b) => Object.assign(b, { 'dist-tags': { '1.x': '1.1.0' } })))],
  ])('%s', async (_label, send) => {
    await expectUnchanged(send, 422, 'VALIDATION_ERROR');
  });
});

describe('publish: dependency names and ranges must be well-formed (422 with the reason)', () => {
  it.each([
    ['dependencies', { 'com.evil."><script>': '1.0.0' }, 'is not a valid package name'],
    ['dependencies', { lodash: '^4.17.0' }, "'lodash' is not a valid package name"],
    ['peerDependencies', { '@acme/core': '1.0.0' }, 'scoped names are not supported'],
    ['optionalDependencies', { 'com.acme.Core': '1.0.0' }, 'must be lowercase'],
    ['devDependencies', { 'not a name': '1.0.0' }, "'not a name' is not a valid package name"],
    ['bundleDependencies', ['<img src=x>'], 'is not a valid package name'],
    ['dependencies', { 'com.acme.core': 'latest' }, "'latest' (for 'com.acme.core') is not a valid semver version or range"],
    ['peerDependencies', { 'com.acme.core': 'file:../core' }, 'is not a valid semver'],
    ['devDependencies', { typescript: 'github:microsoft/typescript' }, 'is not a valid semver'],
  ])('%s %j', async (field, value, reason) => {
    const res = await expectUnchanged(
      () => put(publishBody(NAME, '1.1.0', { manifest: { [field]: value } }).body),
      422,
      'VALIDATION_ERROR',
    );
    expect(res.body.error).toContain(reason);
    expect(res.body.error).toContain(field);
  });

  it('accepts reverse-DNS dependencies with ranges and npm-named devDependencies', async () => {
    const name = 'com.acme.well-formed';
    const manifest = {
      dependencies: { 'com.acme.core': '^1.2.0', 'com.unity.ugui': '1.0.0' },
      peerDependencies: { 'com.acme.peer': '>=1 <3' },
      devDependencies: { typescript: '~5.9.0', '@types/node': '^22.0.0' },
    };
    const res = await publishVersion(registry.url, token, name, '1.0.0', { manifest });
    expect(res.status).toBe(201);
    expect((await request(`${registry.url}/${name}/1.0.0`)).body).toMatchObject(manifest);
  });
});

describe('publish: documents npm never sends are 422 with the reason, and change nothing', () => {
  /** What npm would send for 1.1.0 of NAME, with a second version record beside it. */
  const withExtraVersion = (extra: string) =>
    edited((b) => {
      const versions = b.versions as Record<string, unknown>;
      versions[extra] = { ...(versions['1.1.0'] as object), version: extra, _id: `${NAME}@${extra}` };
    });

  it.each([
    [
      'two new versions and one attachment',
      () => put(withExtraVersion('1.2.0')),
      /exactly one new version \(1\.1\.0\), but 'versions' also lists 1\.2\.0, not published/,
    ],
    [
      'a dist-tag naming a version neither attached nor published',
      () => put(edited((b) => Object.assign(b, { 'dist-tags': { latest: '9.9.9' } }))),
      /dist-tag 'latest' names 9\.9\.9, which is neither the published version 1\.1\.0 nor an earlier one/,
    ],
    [
      'a second dist-tag naming an unknown version beside one naming the attached version',
      () => put(edited((b) => Object.assign(b, { 'dist-tags': { latest: '1.1.0', next: '3.0.0' } }))),
      /dist-tag 'next' names 3\.0\.0/,
    ],
    [
      'a shasum that disagrees with the tarball while the integrity agrees',
      () => put(edited((b) => Object.assign(b.versions['1.1.0']!.dist, { shasum: '0'.repeat(40) }))),
      /dist\.shasum does not match the tarball/,
    ],
    [
      'an integrity that disagrees while the shasum agrees',
      () =>
        put(
          edited((b) => Object.assign(b.versions['1.1.0']!.dist, { integrity: `sha512-${Buffer.alloc(64).toString('base64')}` })),
        ),
      /dist\.integrity does not match the tarball/,
    ],
    [
      'two tarball attachments',
      () =>
        put(
          edited((b) => {
            const attachments = b._attachments as Record<string, unknown>;
            attachments[`${NAME}-1.2.0.tgz`] = attachments[`${NAME}-1.1.0.tgz`];
          }),
        ),
      /exactly one tarball attachment/,
    ],
  ])('%s', async (_label, send, reason) => {
    const res = await expectUnchanged(send, 422, 'VALIDATION_ERROR');
    // Whichever field carries it (npm prints only `error`), the reason is in the answer.
    expect(JSON.stringify(res.body)).toMatch(reason);
  });

  it("accepts npm's merged retry body: other versions and tags that name versions already published", async () => {
    // Its own version: the other tests of this file publish 1.1.0 and expect it new.
    const merged = edited((b) => {
      const versions = b.versions as Record<string, unknown>;
      versions['1.0.0'] = { name: NAME, version: '1.0.0', dist: { shasum: 'whatever' } };
      Object.assign(b, { 'dist-tags': { latest: '1.5.0', stable: '1.0.0' } });
    }, '1.5.0');
    const res = await put(merged);
    expect(res.status).toBe(201);
    const doc = (await request(`${registry.url}/${NAME}`)).body;
    expect(Object.keys(doc.versions).sort()).toEqual(['1.0.0', '1.5.0']);
    // A publish only tags its own version: other tags move through the dist-tag routes.
    expect(doc['dist-tags']).toEqual({ latest: '1.5.0' });
    expect(doc.versions['1.0.0'].dist.shasum).not.toBe('whatever');
  });
});

describe('names: every route refuses a name that is not reverse-DNS (422) and reads no file', () => {
  const names = [
    ['dot-dot', '..'],
    ['encoded dot-dot', '%2e%2e'],
    ['an encoded slash', 'com.acme%2fevil'],
    ['a scope', '@acme%2fthing'],
    ['upper case', 'Com.Acme.Target'],
    ['one segment', 'target'],
    ['215 characters', `com.${'a'.repeat(211)}`],
    ['an empty segment', 'com..acme'],
  ];

  it.each(names)('publish to a name with %s', async (_label, name) => {
    const { body } = publishBody('com.acme.fresh', '1.0.0');
    await expectUnchanged(() => request(`${registry.url}/${name}`, { method: 'PUT', token, body }), 422, 'VALIDATION_ERROR');
  });

  it.each(names)('reads of a name with %s', async (_label, name) => {
    for (const path of [`${name}`, `${name}/1.0.0`, `${name}/-/${name}-1.0.0.tgz`, `-/package/${name}/dist-tags`]) {
      const res = await request(`${registry.url}/${path}`);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(res.body.code).toBeDefined();
    }
  });

  it('literal and encoded dot-dot segments (sent as they are, not normalized by the client) are refused', async () => {
    const { body } = publishBody('com.acme.fresh', '1.0.0');
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    for (const path of [
      '/..',
      '/com.acme.fresh/..',
      '/./..',
      '/../-/..-1.0.0.tgz',
      '/%2e%2e/-/%2e%2e-1.0.0.tgz',
      '/com.acme.target/-/..%2f..%2fregistry.db',
    ]) {
      for (const method of ['PUT', 'GET']) {
        const send = async () => {
          const res = await rawRequest(`${registry.url}${path}`, {
            method,
            headers,
            body: method === 'PUT' ? JSON.stringify(body) : undefined,
          });
          return { status: res.status, body: JSON.parse(res.body.toString()) };
        };
        const before = await storeSnapshot(registry, [NAME, 'com.acme.fresh']);
        const res = await send();
        expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
        expect(res.body.code).toMatch(/^(VALIDATION_ERROR|NOT_FOUND)$/);
        expect(await storeSnapshot(registry, [NAME, 'com.acme.fresh'])).toEqual(before);
      }
    }
  });

  it('a 214-character name is accepted', async () => {
    const name = `com.${'b'.repeat(210)}`;
    expect(name).toHaveLength(214);
    expect((await publishVersion(registry.url, token, name, '1.0.0')).status).toBe(201);
  });
});

describe('sizes: 413 PAYLOAD_TOO_LARGE, in one wording (what, and the limit in bytes)', () => {
  const PUBLISH_BODY_LIMIT = Math.ceil((MAX_TARBALL * 4) / 3) + 1024 * 1024;

  it('a tarball over maxTarballSize', async () => {
    const big = buildTarball({ name: NAME, version: '1.1.0' }, [{ path: 'noise.bin', content: randomBytes(MAX_TARBALL + 1024) }]);
    expect(big.length).toBeGreaterThan(MAX_TARBALL);
    const res = await expectUnchanged(() => put(withTarball(big)), 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.details).toBe(`The tarball is larger than the limit of ${MAX_TARBALL} bytes`);
  });

  it('an attachment whose declared length is over the limit', async () => {
    const res = await expectUnchanged(
      () => put(edited((_b, a) => Object.assign(a, { length: MAX_TARBALL + 1 }))),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(res.body.details).toBe(`The tarball is larger than the limit of ${MAX_TARBALL} bytes`);
  });

  it('a body over the route body limit', async () => {
    const huge = JSON.stringify({ name: NAME, padding: 'x'.repeat(2 * 1024 * 1024) });
    const res = await expectUnchanged(() => putRaw(huge), 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.details).toBe(`The request body is larger than the limit of ${PUBLISH_BODY_LIMIT} bytes`);
  });

  it('a dist-tag body over the general body limit', async () => {
    const huge = JSON.stringify('1'.repeat(2 * 1024 * 1024));
    const send = () =>
      request(`${registry.url}/-/package/${NAME}/dist-tags/beta`, {
        method: 'PUT',
        token,
        rawBody: huge,
        headers: { 'content-type': 'application/json' },
      });
    const res = await expectUnchanged(send, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.details).toMatch(/^The request body is larger than the limit of \d+ bytes$/);
  });
});

describe('unknown routes and methods', () => {
  it.each([
    ['POST', `/${NAME}`],
    ['PATCH', `/${NAME}`],
    ['DELETE', `/${NAME}`],
    ['GET', '/-/no/such/thing'],
    ['POST', `/-/package/${NAME}/dist-tags`],
    ['GET', `/${NAME}/1.0.0/extra`],
  ])('%s %s answers 404 NOT_FOUND', async (method, path) => {
    await expectUnchanged(
      () => request(`${registry.url}${path}`, { method, token, body: method === 'GET' ? undefined : {} }),
      404,
      'NOT_FOUND',
    );
  });

  it('a publish body sent as text is refused', async () => {
    const { body } = publishBody(NAME, '1.1.0');
    await expectUnchanged(() => putRaw(JSON.stringify(body), { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body of an unknown content type is refused', async () => {
    await expectUnchanged(
      () => putRaw(Buffer.from([1, 2, 3]), { 'content-type': 'application/x-unknown' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });
});
