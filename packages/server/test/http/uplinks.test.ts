import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loginUser,
  publishVersion,
  request,
  startFaultProxy,
  startRegistry,
  type FaultProxy,
  type TestRegistry,
} from '@pkg/testkit';

/**
 * Two registries of ours, one the upstream of the other, with a fault-injecting proxy between
 * them. The downstream serves `com.upstream.*` from the upstream, cached; its clock is moved
 * past `maxAge` instead of waiting. The tests run in order and share the caches they fill.
 */
const TOOL = 'com.upstream.tool';
const LIB = 'com.upstream.lib';
const OTHER = 'com.upstream.other';
const SECRET = 'com.upstream.secret';
const EAGER = 'com.upstream.eager';
const CUT = 'com.upstream.cut';
const HEADED = 'com.upstream.headed';
const LARGE = 'com.upstream.large';
const MAX_AGE_S = 60;

let upstream: TestRegistry;
let proxy: FaultProxy;
let downstream: TestRegistry;
let upstreamToken: string;
let localToken: string;
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const uplinks = () =>
  JSON.stringify([
    { name: 'upstream', url: proxy.url, packages: ['com.upstream.*'], maxAge: MAX_AGE_S, timeout: 2, search: true },
  ]);

beforeAll(async () => {
  upstream = await startRegistry();
  upstreamToken = await loginUser(upstream.url, 'upstream-publisher');
  for (const [name, version] of [
    [TOOL, '1.0.0'],
    [TOOL, '1.1.0'],
    [LIB, '1.0.0'],
    [OTHER, '2.0.0'],
    [SECRET, '1.0.0'],
    [EAGER, '1.0.0'],
    [CUT, '1.0.0'],
    [HEADED, '1.0.0'],
  ] as const) {
    const published = await publishVersion(upstream.url, upstreamToken, name, version, {
      manifest: { description: `${name} upstream` },
    });
    expect(published.status).toBe(201);
  }
  // Random bytes do not compress: the tarball is larger than the small downstream's limit.
  const large = await publishVersion(upstream.url, upstreamToken, LARGE, '1.0.0', {
    files: [{ path: 'package/blob.bin', content: randomBytes(4096) }],
  });
  expect(large.status).toBe(201);
  proxy = await startFaultProxy(upstream.url);
  downstream = await startRegistry({ now: clock, settings: { uplinks: uplinks() } });
  localToken = await loginUser(downstream.url, 'local-publisher');
});
afterAll(async () => {
  await downstream?.close();
  await proxy?.close();
  await upstream?.close();
});

const tarballPath = (name: string, version: string) => `/${name}/-/${name}-${version}.tgz`;

async function bytesOf(url: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const response = await fetch(url);
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

describe('a covered package', () => {
  it("is the upstream's document with tarball URLs of this registry, full and abbreviated", async () => {
    const upstreamDoc = (await request(`${upstream.url}/${TOOL}`)).body;
    const full = await request(`${downstream.url}/${TOOL}`);
    expect(full.status).toBe(200);
    expect(Object.keys(full.body.versions)).toEqual(['1.0.0', '1.1.0']);
    expect(full.body['dist-tags']).toEqual(upstreamDoc['dist-tags']);
    expect(full.body.description).toBe(`${TOOL} upstream`);
    expect(full.body.versions['1.1.0'].dist.tarball).toBe(`${downstream.url}${tarballPath(TOOL, '1.1.0')}`);
    expect(full.body.versions['1.1.0'].dist.integrity).toBe(upstreamDoc.versions['1.1.0'].dist.integrity);
    expect(full.headers.get('x-uplink-stale')).toBeNull();

    const abbreviated = await request(`${downstream.url}/${TOOL}`, {
      headers: { accept: 'application/vnd.npm.install-v1+json' },
    });
    expect(abbreviated.status).toBe(200);
    expect(abbreviated.body.versions['1.0.0'].dist.tarball).toBe(`${downstream.url}${tarballPath(TOOL, '1.0.0')}`);
    expect(abbreviated.body.readme).toBeUndefined();
    // Both forms and the second request came from the one fetch.
    expect(proxy.count(`/${TOOL}`)).toBe(1);
    // Asked compressed (the upstream, a registry of ours, then sends gzip).
    expect(proxy.requests.find((r) => r.url === `/${TOOL}`)!.headers['accept-encoding']).toBe('gzip, br');
  });

  it('answers a version record, fetching the document first', async () => {
    const version = await request(`${downstream.url}/${LIB}/1.0.0`);
    expect(version.status).toBe(200);
    expect(version.body.version).toBe('1.0.0');
    expect(version.body.dist.tarball).toBe(`${downstream.url}${tarballPath(LIB, '1.0.0')}`);
  });

  it('has its tarball downloaded once, verified, then served from the blob store', async () => {
    const original = await bytesOf(`${upstream.url}${tarballPath(TOOL, '1.0.0')}`);
    const first = await bytesOf(`${downstream.url}${tarballPath(TOOL, '1.0.0')}`);
    expect(first.status).toBe(200);
    expect(first.bytes.equals(original.bytes)).toBe(true);
    const second = await bytesOf(`${downstream.url}${tarballPath(TOOL, '1.0.0')}`);
    expect(second.bytes.equals(original.bytes)).toBe(true);
    expect(proxy.count(tarballPath(TOOL, '1.0.0'))).toBe(1);
  });

  it('has its tarball downloaded when it is asked for before its document', async () => {
    const path = tarballPath(EAGER, '1.0.0');
    const original = await bytesOf(`${upstream.url}${path}`);
    const first = await bytesOf(`${downstream.url}${path}`);
    expect(first.status).toBe(200);
    expect(first.bytes.equals(original.bytes)).toBe(true);
    expect(proxy.count(`/${EAGER}`)).toBe(1);
    expect((await request(`${downstream.url}/${EAGER}`)).body.versions['1.0.0'].dist.tarball).toBe(`${downstream.url}${path}`);
    expect(proxy.count(`/${EAGER}`)).toBe(1);
  });

  it('makes one upstream request for concurrent requests of one package', async () => {
    const name = SECRET;
    const answers = await Promise.all(Array.from({ length: 12 }, () => request(`${downstream.url}/${name}`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
    expect(proxy.count(`/${name}`)).toBe(1);
  });

  it('makes one upstream request for concurrent first downloads of one tarball', async () => {
    const path = tarballPath(SECRET, '1.0.0');
    const original = await bytesOf(`${upstream.url}${path}`);
    const downloads = await Promise.all(Array.from({ length: 8 }, () => bytesOf(`${downstream.url}${path}`)));
    for (const download of downloads) {
      expect(download.status).toBe(200);
      expect(download.bytes.equals(original.bytes)).toBe(true);
    }
    expect(proxy.count(path)).toBe(1);
  });

  it("answers a HEAD of a tarball not downloaded yet from the upstream's HEAD, downloading nothing", async () => {
    const path = tarballPath(TOOL, '1.1.0');
    const original = await bytesOf(`${upstream.url}${path}`);
    const integrity = (await request(`${upstream.url}/${TOOL}`)).body.versions['1.1.0'].dist.integrity;
    const head = await fetch(`${downstream.url}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(original.bytes.length));
    expect(head.headers.get('etag')).toBe(`"${integrity}"`);
    expect(proxy.requests.filter((r) => r.url === path).map((r) => r.method)).toEqual(['HEAD']);
    const missing = await fetch(`${downstream.url}${tarballPath(TOOL, '9.9.9')}`, { method: 'HEAD' });
    expect(missing.status).toBe(404);
  });

  it('answers a HEAD with the same headers before and after its tarball is downloaded', async () => {
    const path = tarballPath(HEADED, '1.0.0');
    const names = ['content-length', 'content-type', 'etag', 'cache-control', 'accept-ranges'];
    const headersOf = async () => {
      const head = await fetch(`${downstream.url}${path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      return Object.fromEntries(names.map((name) => [name, head.headers.get(name)]));
    };
    const before = await headersOf();
    expect((await bytesOf(`${downstream.url}${path}`)).status).toBe(200);
    const after = await headersOf();
    expect(after).toEqual(before);
    expect(proxy.requests.filter((r) => r.url === path).map((r) => r.method)).toEqual(['HEAD', 'GET']);
  });

  it('is served by a second node on the same storage from what the first fetched, with the upstream unreachable', async () => {
    const second = await startRegistry({ now: clock, dataDir: downstream.dataDir, settings: { uplinks: uplinks() } });
    proxy.set({ kind: 'drop' });
    try {
      const before = proxy.requests.length;
      const doc = await request(`${second.url}/${TOOL}`);
      expect(doc.status).toBe(200);
      expect(doc.headers.get('x-uplink-stale')).toBeNull();
      expect(doc.body.versions['1.0.0'].dist.tarball).toBe(`${second.url}${tarballPath(TOOL, '1.0.0')}`);
      const tarball = await bytesOf(`${second.url}${tarballPath(TOOL, '1.0.0')}`);
      expect(tarball.status).toBe(200);
      expect(proxy.requests.length).toBe(before);
    } finally {
      proxy.set({ kind: 'pass' });
      await second.close();
    }
  });

  it('is revalidated after maxAge with If-None-Match, and a new upstream version then shows', async () => {
    offsetMs += (MAX_AGE_S + 1) * 1000;
    const unchanged = await request(`${downstream.url}/${TOOL}`);
    expect(unchanged.status).toBe(200);
    const revalidation = proxy.requests.filter((r) => r.url === `/${TOOL}`).at(-1)!;
    expect(revalidation.headers['if-none-match']).toBeTruthy();
    expect(proxy.count(`/${TOOL}`)).toBe(2);
    // Fresh again for maxAge: no upstream request.
    await request(`${downstream.url}/${TOOL}`);
    expect(proxy.count(`/${TOOL}`)).toBe(2);

    expect((await publishVersion(upstream.url, upstreamToken, TOOL, '1.2.0')).status).toBe(201);
    expect(Object.keys((await request(`${downstream.url}/${TOOL}`)).body.versions)).not.toContain('1.2.0');
    offsetMs += (MAX_AGE_S + 1) * 1000;
    const changed = await request(`${downstream.url}/${TOOL}`);
    expect(Object.keys(changed.body.versions)).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    expect(changed.body['dist-tags'].latest).toBe('1.2.0');
  });

  it('cannot be published, tagged or changed here (403 naming the uplink)', async () => {
    const publish = await publishVersion(downstream.url, localToken, 'com.upstream.mine', '1.0.0');
    expect(publish.status).toBe(403);
    expect(publish.body.code).toBe('FORBIDDEN');
    expect(publish.body.details).toContain("'upstream'");
    const tag = await request(`${downstream.url}/-/package/${TOOL}/dist-tags/beta`, {
      method: 'PUT',
      token: localToken,
      body: '1.0.0',
    });
    expect(tag.status).toBe(403);
    expect(tag.body.code).toBe('FORBIDDEN');
    expect((await request(`${downstream.url}/com.upstream.mine`)).status).toBe(404);
    // npm deprecate, unpublish and owner read the document with ?write=true first: refused there.
    for (const name of [TOOL, 'com.upstream.mine']) {
      const read = await request(`${downstream.url}/${name}?write=true`, { token: localToken });
      expect(read.status).toBe(403);
      expect(read.body.details).toContain("'upstream'");
    }
  });
});

describe('a name no uplink covers', () => {
  it('is local: published and read here without asking the upstream', async () => {
    const before = proxy.requests.length;
    expect((await publishVersion(downstream.url, localToken, 'com.local.pkg', '1.0.0')).status).toBe(201);
    expect((await request(`${downstream.url}/com.local.pkg`)).status).toBe(200);
    expect((await request(`${downstream.url}/com.unknown.pkg`)).status).toBe(404);
    expect(proxy.requests.length).toBe(before);
  });
});

describe('upstream answers', () => {
  it('a 404 is a 404, remembered for a while', async () => {
    const first = await request(`${downstream.url}/com.upstream.missing`);
    expect(first.status).toBe(404);
    expect(first.body.code).toBe('NOT_FOUND');
    expect((await request(`${downstream.url}/com.upstream.missing`)).status).toBe(404);
    expect(proxy.count('/com.upstream.missing')).toBe(1);
  });

  it('a 401 or 403 to our credentials is a 502, never a 401', async () => {
    proxy.set({ kind: 'status', status: 401 });
    try {
      const refused = await request(`${downstream.url}/com.upstream.refused`);
      expect(refused.status).toBe(502);
      expect(refused.body.code).toBe('BAD_GATEWAY');
      expect(refused.headers.get('www-authenticate')).toBeNull();
    } finally {
      proxy.set({ kind: 'pass' });
    }
  });

  it('a tampered tarball is cut short, never sent whole, and not stored', async () => {
    proxy.set({ kind: 'tamper' });
    try {
      // Streamed as it arrives: the answer has begun (200) when the integrity fails, so the
      // client sees a failed download (uplink-streaming.test.ts looks at its bytes).
      const tampered = await fetch(`${downstream.url}${tarballPath(LIB, '1.0.0')}`);
      expect(tampered.status).toBe(200);
      await expect(tampered.arrayBuffer()).rejects.toThrow();
    } finally {
      proxy.set({ kind: 'pass' });
    }
    const original = await bytesOf(`${upstream.url}${tarballPath(LIB, '1.0.0')}`);
    const good = await bytesOf(`${downstream.url}${tarballPath(LIB, '1.0.0')}`);
    expect(good.status).toBe(200);
    expect(good.bytes.equals(original.bytes)).toBe(true);
  });
  it('a tarball cut off on the way is cut off for the client and not stored; the next request downloads it whole', async () => {
    const path = tarballPath(CUT, '1.0.0');
    proxy.set({ kind: 'cut' });
    try {
      const cut = await fetch(`${downstream.url}${path}`);
      expect(cut.status).toBe(200);
      await expect(cut.arrayBuffer()).rejects.toThrow();
    } finally {
      proxy.set({ kind: 'pass' });
    }
    const original = await bytesOf(`${upstream.url}${path}`);
    const whole = await bytesOf(`${downstream.url}${path}`);
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(original.bytes)).toBe(true);
    expect(proxy.count(path)).toBe(2);
  });
  it('a tarball over maxTarballSize is a 502 and not stored', async () => {
    const small = await startRegistry({ settings: { uplinks: uplinks(), maxTarballSize: 1024 } });
    try {
      const path = tarballPath(LARGE, '1.0.0');
      for (let i = 0; i < 2; i++) {
        const refused = await request(`${small.url}${path}`);
        expect(refused.status).toBe(502);
        expect(refused.body.code).toBe('BAD_GATEWAY');
        expect(refused.body.details).toContain('over 1024 bytes');
      }
      // Not stored: each request asked the upstream again.
      expect(proxy.count(path)).toBe(2);
    } finally {
      await small.close();
    }
  });
});

describe('search', () => {
  it('finds cached upstream packages, and the Unity listing (/-/all) holds them', async () => {
    const found = await request(`${downstream.url}/-/v1/search?text=com.upstream&from=0&size=250`);
    expect(found.status).toBe(200);
    const names = found.body.objects.map((o: { package: { name: string } }) => o.package.name);
    expect(names).toEqual(expect.arrayContaining([TOOL, LIB, SECRET]));
    const all = await request(`${downstream.url}/-/all`);
    expect(all.body[TOOL].name).toBe(TOOL);
    expect(all.body[LIB].name).toBe(LIB);
  });

  it('adds live results of an uplink with search: true after the local ones', async () => {
    const found = await request(`${downstream.url}/-/v1/search?text=com.upstream&size=250`);
    const names: string[] = found.body.objects.map((o: { package: { name: string } }) => o.package.name);
    // OTHER was never fetched: only the live search knows it, and it comes after the cached ones.
    expect(names).toContain(OTHER);
    expect(names.indexOf(OTHER)).toBeGreaterThan(names.indexOf(TOOL));
    expect(new Set(names).size).toBe(names.length);
    expect(found.body.total).toBe(names.length);
  });

  it('answers with the local results when the live search fails', async () => {
    proxy.set({ kind: 'status', status: 500 });
    try {
      const found = await request(`${downstream.url}/-/v1/search?text=com.upstream&size=250`);
      expect(found.status).toBe(200);
      const names = found.body.objects.map((o: { package: { name: string } }) => o.package.name);
      expect(names).toContain(TOOL);
      expect(names).not.toContain(OTHER);
    } finally {
      proxy.set({ kind: 'pass' });
    }
  });
});

describe('the upstream down', () => {
  it('serves cached documents stale (saying so) and cached tarballs; the rest gets 503 with Retry-After', async () => {
    offsetMs += (MAX_AGE_S + 1) * 1000;
    for (const fault of [{ kind: 'drop' }, { kind: 'status', status: 503 }, { kind: 'delay', ms: 5000 }] as const) {
      proxy.set(fault);
      const stale = await request(`${downstream.url}/${TOOL}`);
      expect(stale.status, fault.kind).toBe(200);
      expect(stale.headers.get('x-uplink-stale'), fault.kind).toBe('true');
      expect(Object.keys(stale.body.versions)).toContain('1.2.0');
      // Past the few seconds a stale answer is given from memory: the next one asks again.
      offsetMs += 6_000;
    }
    // Three failures in a row: the circuit is open, nobody waits for the upstream any more.
    const health = await request(`${downstream.url}/-/health`);
    expect(health.body.uplinks).toEqual([{ tenant: '', uplink: 'upstream', circuit: 'open', failures: 3 }]);
    const before = proxy.requests.length;
    const abbreviated = await request(`${downstream.url}/${LIB}`, { headers: { accept: 'application/vnd.npm.install-v1+json' } });
    expect(abbreviated.status).toBe(200);
    expect(abbreviated.headers.get('x-uplink-stale')).toBe('true');
    const version = await request(`${downstream.url}/${TOOL}/1.2.0`);
    expect(version.status).toBe(200);
    expect(version.headers.get('x-uplink-stale')).toBe('true');
    expect((await bytesOf(`${downstream.url}${tarballPath(TOOL, '1.0.0')}`)).status).toBe(200);

    const uncached = await request(`${downstream.url}/${OTHER}`);
    expect(uncached.status).toBe(503);
    expect(uncached.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(Number(uncached.headers.get('retry-after'))).toBeGreaterThan(0);
    const uncachedTarball = await request(`${downstream.url}${tarballPath(TOOL, '1.1.0')}`);
    expect(uncachedTarball.status).toBe(503);
    expect(uncachedTarball.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(uncachedTarball.headers.get('retry-after')).not.toBeNull();
    const uncachedHead = await fetch(`${downstream.url}${tarballPath(TOOL, '1.1.0')}`, { method: 'HEAD' });
    expect(uncachedHead.status).toBe(503);
    expect(uncachedHead.headers.get('retry-after')).not.toBeNull();
    expect(proxy.requests.length).toBe(before);

    const metrics = (await request(`${downstream.url}/-/metrics`)).text;
    expect(metrics).toMatch(/pkg_registry_uplink_stale_total\{tenant="",uplink="upstream"\} [1-9]/);
    expect(metrics).toMatch(/pkg_registry_uplink_failures_total\{tenant="",uplink="upstream"\} [1-9]/);
    expect(metrics).toMatch(/pkg_registry_uplink_requests_total\{tenant="",uplink="upstream"\} [1-9]/);
    expect(metrics).toMatch(/pkg_registry_uplink_cache_hits_total\{tenant="",uplink="upstream"\} [1-9]/);
    proxy.set({ kind: 'pass' });
  });
});
