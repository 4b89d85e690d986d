import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates, startRegistry, type TestRegistry } from '@pkg/testkit';
import { seedPackage } from './seed.js';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request with the raw bytes back (fetch would decompress them). */
function raw(url: string, headers: Record<string, string>, ca?: Buffer): Promise<RawResponse> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      { headers: { accept: 'text/html', ...headers }, agent: false, ...(ca ? { ca } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('pages over HTTP', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry();
    await seedPackage(registry, {
      name: 'com.acme.big',
      readme: `# Big\n\n${'Lorem ipsum dolor sit amet. '.repeat(400)}`,
      versions: [{ version: '1.0.0' }],
    });
  });
  afterAll(async () => {
    await registry.close();
  });

  it('compresses HTML with brotli or gzip as the browser accepts, and sends it plain otherwise', async () => {
    const url = `${registry.url}/-/web/package/com.acme.big`;
    const plain = await raw(url, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const text = plain.body.toString();
    expect(text).toContain('Lorem ipsum');

    const br = await raw(url, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.body.length).toBeLessThan(plain.body.length / 4);
    expect(brotliDecompressSync(br.body).toString()).toBe(text);

    const gz = await raw(url, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(text);

    const refused = await raw(url, { 'accept-encoding': 'br;q=0, gzip' });
    expect(refused.headers['content-encoding']).toBe('gzip');
  });

  it('tags a page and answers 304 when the browser has it', async () => {
    const url = `${registry.url}/-/web/package/com.acme.big`;
    const first = await raw(url, { 'accept-encoding': 'br' });
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    // The tag is the page's, whatever the coding.
    expect((await raw(url, { 'accept-encoding': 'identity' })).headers.etag).toBe(etag);
    const again = await raw(url, { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    const other = await raw(url, { 'accept-encoding': 'br', 'if-none-match': 'W/"something-else"' });
    expect(other.status).toBe(200);
    // Another page (another version) has another tag.
    const home = await raw(`${registry.url}/`, { 'accept-encoding': 'br' });
    expect(home.headers.etag).not.toBe(etag);
    // The home page varies on Accept too (browsers get HTML, other clients JSON).
    expect(home.headers.vary).toBe('Accept, Accept-Encoding');
  });

  it('compresses error pages too but never tags them, and sends no HSTS over plain HTTP', async () => {
    const missing = await raw(`${registry.url}/-/web/package/com.acme.none`, { 'accept-encoding': 'gzip' });
    expect(missing.status).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    expect(missing.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('pages over HTTPS', () => {
  let dir: string;
  let registry: TestRegistry;
  let ca: Buffer;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'web-hsts-'));
    const certs = await makeTestCertificates(dir);
    ca = await readFile(certs.caCert);
    registry = await startRegistry({ settings: { tlsCert: certs.cert, tlsKey: certs.key } });
  });
  afterAll(async () => {
    await registry?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends Strict-Transport-Security on pages and assets when the server itself serves HTTPS', async () => {
    const home = await raw(`${registry.url}/`, {}, ca);
    expect(home.status).toBe(200);
    expect(home.headers['strict-transport-security']).toBe('max-age=31536000');
    const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(home.body.toString())![1]!;
    const css = await raw(`${registry.url}${stylesheet}`, {}, ca);
    expect(css.status).toBe(200);
    expect(css.headers['strict-transport-security']).toBe('max-age=31536000');
  });
});
