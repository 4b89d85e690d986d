import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryClient } from '../../src/http/registry-client.js';
import { parseRegistryUrl } from '../../src/http/registry-url.js';
import { createUndiciTransport } from '../../src/http/undici-transport.js';
import { retryDelay, DEFAULT_RETRY } from '../../src/http/retry.js';
import { ClientError } from '../../src/errors/client-errors.js';
import { startFixtureRegistry, type FixtureRegistry } from '../support/fixture-registry.js';

let fixture: FixtureRegistry;
let other: FixtureRegistry;
const counters = new Map<string, number>();
const bump = (key: string) => {
  const n = (counters.get(key) ?? 0) + 1;
  counters.set(key, n);
  return n;
};

beforeAll(async () => {
  fixture = await startFixtureRegistry((req, url) => {
    const key = url.searchParams.get('text') ?? url.pathname;
    if (key === 'flaky')
      return bump(key) < 3
        ? { status: 503, body: { error: 'Service unavailable', code: 'SERVICE_UNAVAILABLE', details: 'busy' } }
        : { body: { objects: [], total: 0 } };
    if (key === 'down') return { status: 502, body: {} };
    if (key === 'limited')
      return bump(key) < 2
        ? {
            status: 429,
            headers: { 'retry-after': '2' },
            body: {
              error: 'Rate limit exceeded',
              code: 'RATE_LIMIT_EXCEEDED',
              details: 'anonymous limit of 100 requests per hour',
            },
          }
        : { body: { objects: [], total: 0 } };
    if (key === 'very-limited')
      return {
        status: 429,
        headers: { 'retry-after': '3600' },
        body: { error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED', details: 'anonymous limit' },
      };
    if (req.method === 'PUT') return { status: 503, body: {} };
    if (url.pathname === '/-/whoami')
      return { status: 401, body: { error: 'Authentication required', code: 'UNAUTHORIZED', details: 'x' } };
    return undefined;
  });
  other = await startFixtureRegistry(() => ({ status: 200, body: 'tarball' }));
});
afterAll(async () => {
  await fixture?.close();
  await other?.close();
});

function client(token: string | null = null) {
  const sleeps: number[] = [];
  const c = new RegistryClient({
    registry: parseRegistryUrl(fixture.url),
    transport: createUndiciTransport({}, { timeoutMs: 5000 }),
    token,
    userAgent: 'pkg/test',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    now: () => new Date(),
    debug: () => undefined,
  });
  return { c, sleeps };
}

describe('RegistryClient retries', () => {
  it('retries an idempotent call after 5xx with growing backoff', async () => {
    const { c, sleeps } = client();
    const result = await c.search('flaky', 10);
    expect(result.objects).toEqual([]);
    expect(fixture.requests.filter((r) => r.url.includes('text=flaky'))).toHaveLength(3);
    expect(sleeps).toEqual([500, 1000]);
  });

  it('gives up after 3 tries and reports the status', async () => {
    const { c } = client();
    await expect(c.search('down', 10)).rejects.toMatchObject({
      code: 'REGISTRY_ERROR',
      message: 'The registry answered HTTP 502',
    });
    expect(fixture.requests.filter((r) => r.url.includes('text=down'))).toHaveLength(3);
  });

  it('waits as long as Retry-After says on 429, and stops when that is too long', async () => {
    const { c, sleeps } = client();
    await c.search('limited', 10);
    expect(sleeps).toEqual([2000]);
    const second = client();
    const err = await second.c.search('very-limited', 10).catch((e) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'Rate limit exceeded: anonymous limit',
      hint: 'Try again in 3600 seconds.',
    });
    expect(second.sleeps).toEqual([]);
  });

  it('never repeats a login (PUT) after a 5xx', async () => {
    const { c } = client();
    const before = fixture.requests.filter((r) => r.method === 'PUT').length;
    await expect(c.login('u', 'p', 'e')).rejects.toMatchObject({ code: 'REGISTRY_ERROR' });
    expect(fixture.requests.filter((r) => r.method === 'PUT').length - before).toBe(1);
  });
});

describe('RegistryClient tokens and answers', () => {
  it('sends the token to the registry host only, never to a tarball host', async () => {
    const { c } = client('secret-token-123');
    await c.whoami().catch(() => undefined);
    expect(fixture.requests.at(-1)).toMatchObject({ url: '/-/whoami', authorization: 'Bearer secret-token-123' });
    await c.tarball(`${other.url}/com.a.b/-/com.a.b-1.0.0.tgz`);
    expect(other.requests.at(-1)!.authorization).toBeUndefined();
  });

  it('maps a rejected token and an empty answer to client errors', async () => {
    await expect(client('stale').c.whoami()).rejects.toMatchObject({ code: 'TOKEN_REJECTED' });
    await expect(client().c.packument('com.missing.pkg')).rejects.toMatchObject({
      code: 'PACKAGE_NOT_FOUND',
      message: "Package 'com.missing.pkg' not found",
    });
  });
});

describe('RegistryClient timeout', () => {
  it('gives up on a registry that accepts but never answers, after 3 tries', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    let requests = 0;
    silent.on('request', () => requests++);
    try {
      const c = new RegistryClient({
        registry: parseRegistryUrl(`http://127.0.0.1:${port}`),
        transport: createUndiciTransport({}, { timeoutMs: 200 }),
        userAgent: 'pkg/test',
        sleep: async () => undefined,
        now: () => new Date(),
        debug: () => undefined,
      });
      const err = await c.search('anything', 1).catch((e) => e);
      expect(err).toBeInstanceOf(ClientError);
      expect(err.message).toBe('Failed to connect to registry');
      expect(err.hint).toContain('timed out waiting for an answer');
      expect(requests).toBe(3);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('retryDelay', () => {
  const now = new Date('2024-01-01T00:00:00Z');
  it('retries connection failures for any call, in-flight failures only for idempotent calls', () => {
    expect(retryDelay(DEFAULT_RETRY, 1, { error: { code: 'ECONNREFUSED' } }, false, now)).toBe(500);
    expect(retryDelay(DEFAULT_RETRY, 1, { error: { code: 'ECONNRESET' } }, false, now)).toBeNull();
    expect(retryDelay(DEFAULT_RETRY, 2, { error: { code: 'ECONNRESET' } }, true, now)).toBe(1000);
    expect(retryDelay(DEFAULT_RETRY, 3, { error: { code: 'ECONNREFUSED' } }, true, now)).toBeNull();
    expect(retryDelay(DEFAULT_RETRY, 1, { error: { code: 'ENOTFOUND' } }, true, now)).toBeNull();
    expect(retryDelay(DEFAULT_RETRY, 1, { error: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } }, true, now)).toBeNull();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryDelay(DEFAULT_RETRY, 1, { status: 429, retryAfter: '7' }, true, now)).toBe(7000);
    expect(retryDelay(DEFAULT_RETRY, 1, { status: 429, retryAfter: 'Mon, 01 Jan 2024 00:00:05 GMT' }, true, now)).toBe(5000);
    expect(retryDelay(DEFAULT_RETRY, 1, { status: 429 }, true, now)).toBe(500);
    expect(retryDelay(DEFAULT_RETRY, 1, { status: 404 }, true, now)).toBeNull();
    expect(retryDelay(DEFAULT_RETRY, 1, { status: 500 }, false, now)).toBeNull();
  });
});
