/**
 * The uplink service on memory storage, with an upstream answering from a table: a fresh cached
 * document is answered from memory without a promise, a store read or an upstream request, and
 * only while it is fresh.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '@pkg/protocol';
import { createMemoryStorage, loadConfig, serverDeps, type Storage } from '@pkg/server';
import { createServices, type Services } from '../../src/services/services.js';
import { compileUplinks, parseUplinks, type Uplink } from '../../src/config/uplink-config.js';
import type {
  UpstreamClient,
  UpstreamRequest,
  UpstreamResult,
  UpstreamStream,
} from '../../src/services/uplinks/upstream-client.js';

const NAME = 'com.upstream.kit';
const UPSTREAM = 'http://upstream.test';
const scope = { tenant: '', tarballBaseUrl: 'http://registry.test' };
const MAX_AGE_S = 60;

const upstreamDocument = {
  name: NAME,
  'dist-tags': { latest: '1.0.0' },
  versions: {
    '1.0.0': {
      name: NAME,
      version: '1.0.0',
      dist: { tarball: `${UPSTREAM}/${NAME}/-/${NAME}-1.0.0.tgz`, integrity: 'sha512-AAAA' },
    },
  },
  time: { '1.0.0': '2026-01-01T00:00:00.000Z' },
};

/** Answers documents of a table, 404 otherwise, and counts what it was asked. */
class TableUpstream implements UpstreamClient {
  readonly asked: string[] = [];
  async get(request: UpstreamRequest): Promise<UpstreamResult> {
    this.asked.push(request.url);
    if (request.url !== `${UPSTREAM}/${NAME}`) return { kind: 'not-found' };
    const body = Buffer.from(JSON.stringify(upstreamDocument));
    return { kind: 'ok', etag: '"v1"', body, length: body.length };
  }
  async stream(): Promise<UpstreamStream> {
    return { kind: 'not-found' };
  }
  async close(): Promise<void> {}
}

let storage: Storage;
let services: Services;
let upstream: TableUpstream;
let uplink: Uplink;
let storeReads: number;
let offsetMs: number;

beforeEach(() => {
  offsetMs = 0;
  storage = createMemoryStorage();
  // Every read of a stored package is counted.
  const packageOf = storage.packages.package.bind(storage.packages);
  storeReads = 0;
  storage.packages.package = (tenant, name) => {
    const handle = packageOf(tenant, name);
    return {
      tenant,
      name,
      read: () => {
        storeReads++;
        return handle.read();
      },
      update: (mutate) => handle.update(mutate),
    };
  };
  upstream = new TableUpstream();
  const configs = parseUplinks([{ name: 'upstream', url: UPSTREAM, packages: ['com.upstream.*'], maxAge: MAX_AGE_S }]);
  uplink = compileUplinks(configs, {})!.match(NAME)!;
  const clock = () => new Date(Date.now() + offsetMs);
  services = createServices(serverDeps(loadConfig({ flags: {}, env: {} }), storage, clock), { upstreamClient: upstream });
});

describe('a cached upstream document', () => {
  it('is answered from memory while it is fresh: no promise, no store read, no upstream request', async () => {
    expect(services.uplinks.freshDocument(scope, NAME, 'full')).toBeUndefined();
    const first = await services.uplinks.document(scope, uplink, NAME, 'full');
    expect(first.stale).toBe(false);
    expect(upstream.asked).toEqual([`${UPSTREAM}/${NAME}`]);

    // The first request read the store (the count sees the service's reads).
    expect(storeReads).toBeGreaterThan(0);
    const reads = storeReads;
    const fresh = services.uplinks.freshDocument(scope, NAME, 'full');
    expect(fresh).toBe(first.representation);
    expect(JSON.parse(fresh!.body.toString('utf8')).versions['1.0.0'].dist.tarball).toBe(
      `${scope.tarballBaseUrl}/${NAME}/-/${NAME}-1.0.0.tgz`,
    );
    expect(storeReads).toBe(reads);
    expect(upstream.asked).toHaveLength(1);
    expect(services.uplinks.stats()).toEqual([expect.objectContaining({ uplink: 'upstream', requests: 1, hits: 1 })]);
  });

  it('is not answered from memory once maxAge has passed (the next request revalidates)', async () => {
    await services.uplinks.document(scope, uplink, NAME, 'full');
    expect(services.uplinks.freshDocument(scope, NAME, 'full')).toBeDefined();
    offsetMs = (MAX_AGE_S + 1) * 1000;
    expect(services.uplinks.freshDocument(scope, NAME, 'full')).toBeUndefined();
    await services.uplinks.document(scope, uplink, NAME, 'full');
    expect(upstream.asked).toHaveLength(2);
    expect(services.uplinks.freshDocument(scope, NAME, 'full')).toBeDefined();
  });

  it('of a name the upstream does not have is never answered from memory as a document', async () => {
    const missing = 'com.upstream.missing';
    await expect(services.uplinks.document(scope, uplink, missing, 'full')).rejects.toSatisfy(
      (err: unknown) => err instanceof ProtocolError && err.code === 'NOT_FOUND',
    );
    expect(services.uplinks.freshDocument(scope, missing, 'full')).toBeUndefined();
    // Remembered: the second request does not reach the upstream.
    await expect(services.uplinks.document(scope, uplink, missing, 'full')).rejects.toThrow();
    expect(upstream.asked.filter((url) => url.endsWith(missing))).toHaveLength(1);
  });
});
