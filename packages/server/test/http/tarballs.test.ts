import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishBody, rawRequest, request, startRegistry, type TestRegistry } from '@pkg/testkit';

const NAME = 'com.acme.files';
const FILE = `${NAME}-1.0.0.tgz`;
let registry: TestRegistry;
let tarball: Buffer;
const downloads: string[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  const recorder = registry.services.downloads;
  recorder.record = (tenant, name, version) => void downloads.push(`${tenant}|${name}@${version}`);
  const token = await loginUser(registry.url, 'alice');
  const published = publishBody(NAME, '1.0.0', { files: [{ path: 'Runtime/data.bin', content: Buffer.alloc(70_000, 3) }] });
  tarball = published.tarball;
  expect((await request(`${registry.url}/${NAME}`, { method: 'PUT', token, body: published.body })).status).toBe(201);
});
afterAll(async () => {
  await registry.close();
});

describe('GET /<name>/-/<name>-<version>.tgz', () => {
  it('streams the exact bytes with length, type, strong ETag and immutable caching, and counts the download', async () => {
    downloads.length = 0;
    const res = await rawRequest(`${registry.url}/${NAME}/-/${FILE}`);
    expect(res.status).toBe(200);
    expect(res.body.equals(tarball)).toBe(true);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-length']).toBe(String(tarball.length));
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    expect(res.headers.etag).toBe(`"${integrity}"`);
    expect(downloads).toEqual([`|${NAME}@1.0.0`]);
  });

  it('answers 304 to a matching If-None-Match without counting a download', async () => {
    const first = await rawRequest(`${registry.url}/${NAME}/-/${FILE}`);
    downloads.length = 0;
    const again = await rawRequest(`${registry.url}/${NAME}/-/${FILE}`, {
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(downloads).toEqual([]);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    downloads.length = 0;
    const res = await rawRequest(`${registry.url}/${NAME}/-/${FILE}`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(res.headers['content-length']).toBe(String(tarball.length));
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers.etag).toMatch(/^"sha512-/);
    expect(downloads).toEqual([]);
  });

  it.each([
    ['an unknown version', `${NAME}/-/${NAME}-9.9.9.tgz`],
    ['another package name in the file', `${NAME}/-/com.acme.other-1.0.0.tgz`],
    ['a file name that is no tarball', `${NAME}/-/package.json`],
    ['a version that is not semver', `${NAME}/-/${NAME}-1.0.tgz`],
    ['an encoded path in the file name', `${NAME}/-/..%2f..%2fregistry.db`],
    ['an unknown package', `com.acme.none/-/com.acme.none-1.0.0.tgz`],
  ])('answers 404 NOT_FOUND for %s (GET and HEAD)', async (_label, path) => {
    const res = await request(`${registry.url}/${path}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect((await rawRequest(`${registry.url}/${path}`, { method: 'HEAD' })).status).toBe(404);
  });

  it.each([
    ['a dot-dot package name', `%2e%2e/-/${FILE}`],
    ['a traversal in the package name', `..%2f..%2fetc/-/passwd`],
    ['an upper-case package name', `Com.Acme.Files/-/${FILE}`],
  ])('answers 422 VALIDATION_ERROR for %s and never reads outside the store', async (_label, path) => {
    const res = await request(`${registry.url}/${path}`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('never serves the registry database or a path outside the store', async () => {
    for (const path of ['/../registry.db', '/%2e%2e/%2e%2e/registry.db', `/${NAME}/-/../../registry.db`]) {
      const res = await rawRequest(`${registry.url}${path}`);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.toString()).not.toContain('SQLite');
    }
  });
});
