import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, request, startRegistry, type TestRegistry } from '@pkg/testkit';

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry({ settings: { maxBodySize: 64 * 1024 } });
});
afterAll(async () => {
  await registry?.close();
});

const loginUrl = (name: string) => `${registry.url}/-/user/org.couchdb.user:${name}`;
const json = { 'content-type': 'application/json' };

describe('hostile JSON bodies', () => {
  it.each([
    ['a __proto__ key', '{"name":"proto","password":"p","__proto__":{"admin":true}}'],
    ['a nested __proto__ key', '{"name":"proto","password":"p","roles":[],"date":{"__proto__":{"x":1}}}'],
    ['constructor.prototype', '{"name":"proto","password":"p","constructor":{"prototype":{"admin":true}}}'],
  ])('%s is 400 and changes nothing', async (_label, rawBody) => {
    const res = await request(loginUrl('proto'), { method: 'PUT', rawBody, headers: json });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(await registry.storage.registry.users.get('', 'proto')).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('nesting deeper than 64 levels is 400', async () => {
    const deep = '{"a":'.repeat(65) + '1' + '}'.repeat(65);
    const res = await request(loginUrl('deep'), { method: 'PUT', rawBody: deep, headers: json });
    expect(res.status).toBe(400);
    expect(res.body.details).toBe('The JSON body is nested more than 64 levels deep');
  });

  it('nesting of tens of thousands of levels is 400, not a crash', async () => {
    const depth = 30_000;
    const res = await request(loginUrl('deeper'), {
      method: 'PUT',
      rawBody: '['.repeat(depth) + ']'.repeat(depth),
      headers: json,
    });
    expect(res.status).toBe(400);
    expect((await request(`${registry.url}/-/ping`)).status).toBe(200);
  });

  it('a body over maxBodySize is 413', async () => {
    const res = await request(loginUrl('big'), {
      method: 'PUT',
      body: { name: 'big', password: 'p', email: `${'x'.repeat(70 * 1024)}@example.com` },
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a gzip body that inflates past the limit is 413', async () => {
    const bomb = gzipSync(Buffer.from(`{"name":"bomb","password":"${'0'.repeat(5 * 1024 * 1024)}"}`));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await request(loginUrl('bomb'), {
      method: 'PUT',
      rawBody: bomb,
      headers: { ...json, 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(413);
    expect(await registry.storage.registry.users.get('', 'bomb')).toBeUndefined();
  });

  it.each([
    ['a non-JSON content type', { 'content-type': 'text/plain' }, 415],
    ['an unknown content encoding', { ...json, 'content-encoding': 'br2' }, 415],
    ['a gzip header on a plain body', { ...json, 'content-encoding': 'gzip' }, 400],
  ])('%s is a clear 4xx', async (_label, headers, status) => {
    const res = await request(loginUrl('typed'), { method: 'PUT', rawBody: '{"name":"typed","password":"p"}', headers });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String), details: expect.any(String) });
  });
});

describe('no 500, no stack trace for odd requests', () => {
  it.each([
    ['PUT', '/-/user/org.couchdb.user:%00', '{"name":"\\u0000","password":"p"}'],
    ['PUT', '/-/user/org.couchdb.user:' + 'n'.repeat(300), '{"name":"x","password":"p"}'],
    ['PUT', '/-/user/org.couchdb.user:ok', '"just a string"'],
    ['PUT', '/-/user/org.couchdb.user:ok', 'null'],
    ['PUT', '/-/user/org.couchdb.user:ok', '{"name":["ok"],"password":"p"}'],
    ['GET', '/-/user/org.couchdb.user:..%2f..%2fetc', undefined],
    ['GET', '/-/whoami?' + 'q=1&'.repeat(500), undefined],
    ['POST', '/-/v1/login', '{'],
  ])('%s %s', async (method, url, rawBody) => {
    const res = await request(`${registry.url}${url}`, { method, ...(rawBody !== undefined ? { rawBody, headers: json } : {}) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
    expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String), details: expect.any(String) });
  });
});

describe('a Host header that is not a host name', () => {
  // Found by the reliability suite's fuzzer: the web pages built URLs from it and answered 500.
  it.each([
    ['x y', '/-/web/signin'],
    ['x y', '/-/ping'],
    ['a/b', '/-/web/package/com.acme.x'],
    ['user@host', '/com.acme.x'],
    ['host?q', '/-/whoami'],
    ['[not-ipv6]', '/'],
  ])('%s on %s is 400 BAD_REQUEST', async (host, path) => {
    const res = await rawRequest(`${registry.url}${path}`, { headers: { host } });
    expect(res.status).toBe(400);
    // The web's pages answer with an HTML page, the API with the error body.
    if (!path.startsWith('/-/web/') && path !== '/')
      expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'BAD_REQUEST' });
    expect(res.body.toString()).not.toMatch(/\n\s+at |node_modules/);
  });

  it('a host name with a port, an IPv6 literal or a trailing dot is served', async () => {
    for (const host of ['registry.example.com:4873', '[::1]:80', 'Registry.Example.com.']) {
      expect((await rawRequest(`${registry.url}/-/ping`, { headers: { host } })).status).toBe(200);
    }
  });
});

describe('secrets at rest', () => {
  it('tokens are 256 random bits, and the database holds only their hash and only a password hash', async () => {
    // Reads the database file itself, so on the embedded profile whatever the suite's profile.
    const embedded = await startRegistry({ profile: 'embedded' });
    try {
      const password = 'a-very-recognisable-password-123';
      const res = await request(`${embedded.url}/-/user/org.couchdb.user:at-rest`, {
        method: 'PUT',
        body: { name: 'at-rest', password },
      });
      const token: string = res.body.token;
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);

      const file = path.join(embedded.dataDir, 'registry.db');
      const bytes = Buffer.concat([await readFile(file), await readFile(`${file}-wal`).catch(() => Buffer.alloc(0))]).toString(
        'latin1',
      );
      expect(bytes).not.toContain(token);
      expect(bytes).not.toContain(password);
      expect(bytes).toContain(createHash('sha256').update(token).digest('hex'));
      expect((await embedded.storage.registry.users.get('', 'at-rest'))!.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    } finally {
      await embedded.close();
    }
  });

  it('two accounts with the same password get different hashes (per-user salt)', async () => {
    for (const name of ['salt-a', 'salt-b']) {
      await request(loginUrl(name), { method: 'PUT', body: { name, password: 'same-password' } });
    }
    const a = await registry.storage.registry.users.get('', 'salt-a');
    const b = await registry.storage.registry.users.get('', 'salt-b');
    expect(a!.passwordHash).not.toBe(b!.passwordHash);
  });
});
