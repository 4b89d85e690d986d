import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryClient, type RegistryClientOptions } from '../../src/http/registry-client.js';
import { parseRegistryUrl } from '../../src/http/registry-url.js';
import { createUndiciTransport } from '../../src/http/undici-transport.js';
import { startFixtureRegistry, type FixtureRegistry } from '../support/fixture-registry.js';

// A registry whose reads need a credential: 401 without one.
let guarded: FixtureRegistry;
const document = { name: 'com.vendor.a', 'dist-tags': {}, versions: {} };

beforeAll(async () => {
  guarded = await startFixtureRegistry((req) =>
    req.headers.authorization
      ? { body: document }
      : { status: 401, body: { error: 'Authentication required', code: 'UNAUTHORIZED', details: 'token required' } },
  );
});
afterAll(async () => guarded?.close());

function client(options: Partial<RegistryClientOptions>) {
  return new RegistryClient({
    registry: parseRegistryUrl(guarded.url),
    transport: createUndiciTransport({}, { timeoutMs: 5000 }),
    userAgent: 'pkg/test',
    sleep: async () => undefined,
    now: () => new Date(),
    debug: () => undefined,
    ...options,
  });
}

describe('RegistryClient credentials', () => {
  it('sends a Basic credential (upmconfig `_auth`) as such', async () => {
    const mark = guarded.requests.length;
    await client({ token: 'YWxpY2U6c2VjcmV0', tokenScheme: 'Basic' }).packument('com.vendor.a');
    expect(guarded.requests.slice(mark).map((r) => r.authorization)).toEqual(['Basic YWxpY2U6c2VjcmV0']);
  });

  it('with lazy auth (alwaysAuth = false) sends the token only once the registry asks, then keeps sending it', async () => {
    const mark = guarded.requests.length;
    const lazy = client({ token: 'tok', lazyAuth: true });
    await lazy.packument('com.vendor.a');
    await lazy.packument('com.vendor.a');
    expect(guarded.requests.slice(mark).map((r) => r.authorization ?? null)).toEqual([null, 'Bearer tok', 'Bearer tok']);
  });

  it('names the registry and how to log in on a 401 without a credential', async () => {
    await expect(client({}).packument('com.vendor.a')).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
      message: `Authentication required by ${guarded.url}`,
      hint: expect.stringContaining(`pkg login --registry ${guarded.url}`),
    });
  });
});
