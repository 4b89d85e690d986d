import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, rawRequest, request, startRegistry, type TestRegistry } from '@pkg/testkit';

const NAME = 'com.acme.document';
const ABBREVIATED = 'application/vnd.npm.install-v1+json';
const NPM_ACCEPT = `${ABBREVIATED}; q=1.0, application/json; q=0.8, */*`;
// Large enough to be compressed.
const README = `# Document\n\n${'A package for tests. '.repeat(120)}\n`;

let registry: TestRegistry;
let token: string;
beforeAll(async () => {
  registry = await startRegistry();
  token = await loginUser(registry.url, 'alice');
  const first = await publishVersion(registry.url, token, NAME, '1.0.0', {
    readme: README,
    manifest: {
      description: 'First version',
      license: 'MIT',
      keywords: ['tools'],
      unity: '2021.3',
      unityRelease: '0f1',
      dependencies: { 'com.acme.base': '1.0.0' },
      readmeFilename: 'README.md',
      author: 'Alice <alice@example.com>',
      scripts: { test: 'echo ok' },
    },
  });
  expect(first.status).toBe(201);
});
afterAll(async () => {
  await registry.close();
});

describe('GET /<name>: full document', () => {
  it('has the CouchDB-style fields npm, yarn and Unity read, with absolute tarball URLs', async () => {
    const res = await request(`${registry.url}/${NAME}`);
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc._id).toBe(NAME);
    expect(doc._rev).toMatch(/^1-[0-9a-f]{32}$/);
    expect(doc.name).toBe(NAME);
    expect(doc.description).toBe('First version');
    expect(doc.license).toBe('MIT');
    expect(doc['dist-tags']).toEqual({ latest: '1.0.0' });
    expect(doc.maintainers).toEqual([{ name: 'alice', email: 'alice@example.com' }]);
    expect(doc.readme).toBe(README);
    expect(doc.readmeFilename).toBe('README.md');
    expect(Object.keys(doc.time).sort()).toEqual(['1.0.0', 'created', 'modified']);
    expect(Date.parse(doc.time['1.0.0'])).toBeGreaterThan(0);
    const record = doc.versions['1.0.0'];
    expect(record).toMatchObject({
      name: NAME,
      version: '1.0.0',
      unity: '2021.3',
      unityRelease: '0f1',
      dependencies: { 'com.acme.base': '1.0.0' },
      _id: `${NAME}@1.0.0`,
      _npmUser: { name: 'alice', email: 'alice@example.com' },
    });
    expect(record.readme).toBeUndefined();
    expect(record.dist.tarball).toBe(`${registry.url}/${NAME}/-/${NAME}-1.0.0.tgz`);
    expect(record.dist.integrity).toMatch(/^sha512-[A-Za-z0-9+/]+=*$/);
    expect(record.dist.shasum).toMatch(/^[0-9a-f]{40}$/);
    expect(record.dist.fileCount).toBe(1);
    expect(record.dist.unpackedSize).toBeGreaterThan(0);
  });

  it('is compact JSON with caching headers: strong ETag, Last-Modified, Vary, max-age=300', async () => {
    const res = await rawRequest(`${registry.url}/${NAME}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const doc = JSON.parse(res.body.toString());
    expect(res.headers['last-modified']).toBe(new Date(doc.time.modified).toUTCString());
    expect(res.body.toString()).toBe(JSON.stringify(doc));
  });
});

describe('GET /<name>: abbreviated document', () => {
  it('answers npm install Accept with the install fields only, as application/vnd.npm.install-v1+json', async () => {
    const res = await rawRequest(`${registry.url}/${NAME}`, { headers: { accept: NPM_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(ABBREVIATED);
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    const doc = JSON.parse(res.body.toString());
    expect(Object.keys(doc).sort()).toEqual(['dist-tags', 'modified', 'name', 'versions']);
    const full = (await request(`${registry.url}/${NAME}`)).body;
    expect(doc.modified).toBe(full.time.modified);
    expect(doc.versions['1.0.0']).toEqual({
      name: NAME,
      version: '1.0.0',
      dependencies: { 'com.acme.base': '1.0.0' },
      unity: '2021.3',
      unityRelease: '0f1',
      _hasShrinkwrap: false,
      dist: full.versions['1.0.0'].dist,
    });
    expect(res.headers.etag).not.toBe((await rawRequest(`${registry.url}/${NAME}`)).headers.etag);
  });

  it('keeps the full form when plain JSON is preferred', async () => {
    const res = await request(`${registry.url}/${NAME}`, { headers: { accept: `application/json, ${ABBREVIATED}; q=0.5` } });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body._rev).toBeDefined();
  });
});

describe('conditional requests', () => {
  it('answers 304 to a matching If-None-Match and 200 to a different one', async () => {
    const first = await rawRequest(`${registry.url}/${NAME}`);
    const etag = String(first.headers.etag);
    const again = await rawRequest(`${registry.url}/${NAME}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['cache-control']).toBe('public, max-age=300');
    const other = await rawRequest(`${registry.url}/${NAME}`, { headers: { 'if-none-match': '"something-else"' } });
    expect(other.status).toBe(200);
  });

  it('answers 304 to If-Modified-Since at or after Last-Modified, 200 before it', async () => {
    const first = await rawRequest(`${registry.url}/${NAME}`);
    const lastModified = String(first.headers['last-modified']);
    expect((await rawRequest(`${registry.url}/${NAME}`, { headers: { 'if-modified-since': lastModified } })).status).toBe(304);
    const before = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    expect((await rawRequest(`${registry.url}/${NAME}`, { headers: { 'if-modified-since': before } })).status).toBe(200);
  });

  it('treats the ETag of a compressed response as naming the same document', async () => {
    const gz = await rawRequest(`${registry.url}/${NAME}`, { headers: { 'accept-encoding': 'gzip' } });
    const res = await rawRequest(`${registry.url}/${NAME}`, { headers: { 'if-none-match': String(gz.headers.etag) } });
    expect(res.status).toBe(304);
  });
});

describe('compression', () => {
  it('sends gzip and brotli when accepted, each with its own strong ETag, and identity otherwise', async () => {
    const plain = await rawRequest(`${registry.url}/${NAME}`);
    expect(plain.headers['content-encoding']).toBeUndefined();

    const gz = await rawRequest(`${registry.url}/${NAME}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(gz.body.length).toBeLessThan(plain.body.length);

    const br = await rawRequest(`${registry.url}/${NAME}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

    expect(new Set([plain.headers.etag, gz.headers.etag, br.headers.etag]).size).toBe(3);
    const refused = await rawRequest(`${registry.url}/${NAME}`, { headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });
});

describe('caching and invalidation', () => {
  it('serves repeated reads from pre-serialized bytes without reading the store again', async () => {
    const packages = registry.storage.packages;
    const original = packages.package.bind(packages);
    let reads = 0;
    packages.package = (tenant, name) => {
      const handle = original(tenant, name);
      return {
        tenant,
        name,
        read: () => {
          reads++;
          return handle.read();
        },
        update: (mutate) => handle.update(mutate),
      };
    };
    try {
      // On shared storage, the announcement of an earlier write may reach this node after the
      // first read and drop what it cached: read until a read is answered from the cache.
      for (let warm = 0; warm < 20; warm++) {
        const previous = reads;
        await request(`${registry.url}/${NAME}`, { headers: { accept: NPM_ACCEPT } });
        if (warm > 0 && reads === previous) break;
      }
      const before = reads;
      for (let i = 0; i < 5; i++) {
        expect((await request(`${registry.url}/${NAME}`, { headers: { accept: NPM_ACCEPT } })).status).toBe(200);
      }
      expect(reads).toBe(before);
    } finally {
      packages.package = original;
    }
  });

  it('drops the cached document when the package changes', async () => {
    const before = await rawRequest(`${registry.url}/${NAME}`, { headers: { accept: NPM_ACCEPT } });
    expect((await publishVersion(registry.url, token, NAME, '1.1.0')).status).toBe(201);
    const after = await rawRequest(`${registry.url}/${NAME}`, { headers: { accept: NPM_ACCEPT } });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const doc = JSON.parse(after.body.toString());
    expect(Object.keys(doc.versions).sort()).toEqual(['1.0.0', '1.1.0']);
    expect(doc['dist-tags'].latest).toBe('1.1.0');
    const stale = await rawRequest(`${registry.url}/${NAME}`, {
      headers: { accept: NPM_ACCEPT, 'if-none-match': String(before.headers.etag) },
    });
    expect(stale.status).toBe(200);
  });

  it('?write=true returns the full document, uncached, whatever the Accept header', async () => {
    const res = await rawRequest(`${registry.url}/${NAME}?write=true`, { headers: { accept: NPM_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const doc = JSON.parse(res.body.toString());
    expect(doc._rev).toMatch(/^\d+-/);
    expect(doc.maintainers).toHaveLength(1);
  });
});

describe('errors', () => {
  it('answers 404 NOT_FOUND for an unknown package', async () => {
    const res = await request(`${registry.url}/com.acme.nothing`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "Package 'com.acme.nothing' not found",
      code: 'NOT_FOUND',
      details: "Package 'com.acme.nothing' not found",
    });
  });

  it.each([
    ['upper case', 'Com.Acme.Tool'],
    ['one segment', 'tool'],
    ['a scope', '@acme%2ftool'],
    ['an encoded slash', 'com.acme%2ftool'],
    ['dot-dot', '%2e%2e'],
    ['215 characters', `com.${'a'.repeat(211)}`],
  ])('answers 422 VALIDATION_ERROR for a name with %s', async (_label, name) => {
    // Sent verbatim: fetch would resolve `/%2e%2e` to `/` (the web interface's home).
    const res = await verbatimGet(`/${name}`);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).code).toBe('VALIDATION_ERROR');
  });
});

describe('public URLs', () => {
  it('builds tarball URLs from the configured CDN URL', async () => {
    const cdn = await startRegistry({ settings: { cdnUrl: 'https://cdn.example.com/registry' } });
    try {
      const t = await loginUser(cdn.url, 'carol');
      expect((await publishVersion(cdn.url, t, 'com.acme.cdn', '1.0.0')).status).toBe(201);
      const doc = (await request(`${cdn.url}/com.acme.cdn`)).body;
      expect(doc.versions['1.0.0'].dist.tarball).toBe('https://cdn.example.com/registry/com.acme.cdn/-/com.acme.cdn-1.0.0.tgz');
      const version = (await request(`${cdn.url}/com.acme.cdn/1.0.0`)).body;
      expect(version.dist.tarball).toBe('https://cdn.example.com/registry/com.acme.cdn/-/com.acme.cdn-1.0.0.tgz');
      // The registry itself still serves the file.
      const tarball = await fetch(`${cdn.url}/com.acme.cdn/-/com.acme.cdn-1.0.0.tgz`);
      expect(tarball.status).toBe(200);
      expect((await tarball.arrayBuffer()).byteLength).toBeGreaterThan(0);
    } finally {
      await cdn.close();
    }
  });

  it('builds them from the Host of each request when no public URL is configured', async () => {
    const res = await rawRequest(`${registry.url}/${NAME}`, { headers: { host: 'registry.example.test:8080' } });
    const doc = JSON.parse(res.body.toString());
    expect(doc.versions['1.0.0'].dist.tarball).toBe(`http://registry.example.test:8080/${NAME}/-/${NAME}-1.0.0.tgz`);
  });
});

/** GET of a path exactly as given, without URL normalization. */
async function verbatimGet(path: string): Promise<{ status: number; body: string }> {
  const { request: httpRequest } = await import('node:http');
  const { hostname, port } = new URL(registry.url);
  return new Promise((resolve, reject) => {
    httpRequest({ host: hostname, port, path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}
