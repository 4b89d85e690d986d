import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, startFaultProxy, startRegistry, type FaultProxy, type TestRegistry } from '@pkg/testkit';

/**
 * The first GET of an upstream tarball is answered while it arrives (uplink-service.ts,
 * tarball-tee.ts). The upstream is one of our registries behind a fault proxy that can hold a
 * tarball body part-way (`pause-after`) until the test resumes it: "the client has bytes before
 * the upstream finished" is then a fact of the test, not a timing.
 */
const PAUSE_AT = 4096;
const names = {
  streamed: 'com.upstream.streamed',
  tampered: 'com.upstream.tampered',
  shared: 'com.upstream.shared',
  left: 'com.upstream.left',
  large: 'com.upstream.large',
};

let upstream: TestRegistry;
let proxy: FaultProxy;
let downstream: TestRegistry;
/** A downstream whose tarballs are all "large" (streamed from storage, not kept for late joiners). */
let lowThreshold: TestRegistry;

beforeAll(async () => {
  upstream = await startRegistry();
  const token = await loginUser(upstream.url, 'upstream-publisher');
  for (const name of Object.values(names)) {
    // Random bytes do not compress: each tarball is some 64 KiB, many socket reads.
    const published = await publishVersion(upstream.url, token, name, '1.0.0', {
      files: [{ path: 'package/data.bin', content: randomBytes(64 * 1024) }],
    });
    expect(published.status).toBe(201);
  }
  proxy = await startFaultProxy(upstream.url);
  const uplinks = JSON.stringify([{ name: 'upstream', url: proxy.url, packages: ['com.upstream.*'], maxAge: 60, timeout: 5 }]);
  downstream = await startRegistry({ settings: { uplinks } });
  lowThreshold = await startRegistry({ settings: { uplinks, tarballStreamThreshold: 1024 } });
});
afterAll(async () => {
  proxy?.resume();
  await lowThreshold?.close();
  await downstream?.close();
  await proxy?.close();
  await upstream?.close();
});

const tarballPath = (name: string) => `/${name}/-/${name}-1.0.0.tgz`;

async function original(name: string): Promise<Buffer> {
  const response = await fetch(`${upstream.url}${tarballPath(name)}`);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** A GET seen byte by byte: what arrived so far, and whether the response completed. */
interface Download {
  status: number;
  contentLength: number;
  received(): number;
  /** Resolves once some bytes of the body arrived. */
  firstBytes: Promise<void>;
  finished: Promise<{ bytes: Buffer; complete: boolean }>;
  abort(): void;
}

function download(url: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    const request = get(url, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let arrived!: () => void;
      const firstBytes = new Promise<void>((done) => (arrived = done));
      response.on('error', () => undefined);
      const finished = new Promise<{ bytes: Buffer; complete: boolean }>((done) => {
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          arrived();
        });
        response.on('close', () => done({ bytes: Buffer.concat(chunks), complete: response.complete }));
      });
      resolve({
        status: response.statusCode ?? 0,
        contentLength: Number(response.headers['content-length']),
        received: () => size,
        firstBytes,
        finished,
        abort: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}

async function wholeOf(url: string): Promise<Buffer> {
  const got = await download(url);
  expect(got.status).toBe(200);
  const { bytes, complete } = await got.finished;
  expect(complete).toBe(true);
  return bytes;
}

describe('the first download of an upstream tarball', () => {
  it('reaches the client before the upstream has sent it all, and is the tarball then stored', async () => {
    const path = tarballPath(names.streamed);
    const expected = await original(names.streamed);
    proxy.set({ kind: 'pause-after', bytes: PAUSE_AT });
    try {
      const first = await download(`${downstream.url}${path}`);
      expect(first.status).toBe(200);
      expect(first.contentLength).toBe(expected.length);
      await proxy.stalled();
      await first.firstBytes;
      // The upstream is held after PAUSE_AT bytes: what the client has came while it was held.
      expect(first.received()).toBeGreaterThan(0);
      expect(first.received()).toBeLessThan(PAUSE_AT);
      proxy.resume();
      const { bytes, complete } = await first.finished;
      expect(complete).toBe(true);
      expect(bytes.equals(expected)).toBe(true);
    } finally {
      proxy.set({ kind: 'pass' });
      proxy.resume();
    }
    // Stored: served again without asking the upstream, the same bytes.
    expect((await wholeOf(`${downstream.url}${path}`)).equals(expected)).toBe(true);
    expect(proxy.count(path)).toBe(1);
  });

  it('is cut short, never completed, when it fails its integrity, and is not stored', async () => {
    const path = tarballPath(names.tampered);
    const expected = await original(names.tampered);
    proxy.set({ kind: 'tamper' });
    try {
      const tampered = await download(`${downstream.url}${path}`);
      expect(tampered.status).toBe(200);
      const { bytes, complete } = await tampered.finished;
      expect(complete).toBe(false);
      expect(bytes.length).toBeLessThan(tampered.contentLength);
      // All the bytes it got are the upstream's but the last, which was held for the verdict.
      expect(bytes.equals(expected.subarray(0, bytes.length))).toBe(true);
    } finally {
      proxy.set({ kind: 'pass' });
    }
    // Not stored: the next request asks the upstream again and gets the right bytes.
    expect((await wholeOf(`${downstream.url}${path}`)).equals(expected)).toBe(true);
    expect(proxy.count(path)).toBe(2);
    expect((await wholeOf(`${downstream.url}${path}`)).equals(expected)).toBe(true);
    expect(proxy.count(path)).toBe(2);
  });

  it('is one upstream request for concurrent first requests, each sent every byte as it comes', async () => {
    const path = tarballPath(names.shared);
    const expected = await original(names.shared);
    proxy.set({ kind: 'pause-after', bytes: PAUSE_AT });
    try {
      const first = await download(`${downstream.url}${path}`);
      await proxy.stalled();
      await first.firstBytes;
      // Joining while the upstream is held: each is sent what went out before, from memory.
      const later = await Promise.all(Array.from({ length: 4 }, () => download(`${downstream.url}${path}`)));
      await Promise.all(later.map((joined) => joined.firstBytes));
      proxy.resume();
      for (const each of [first, ...later]) {
        expect(each.status).toBe(200);
        const { bytes, complete } = await each.finished;
        expect(complete).toBe(true);
        expect(bytes.equals(expected)).toBe(true);
      }
    } finally {
      proxy.set({ kind: 'pass' });
      proxy.resume();
    }
    expect(proxy.count(path)).toBe(1);
  });

  it('is stored although its client went away part-way', async () => {
    const path = tarballPath(names.left);
    const expected = await original(names.left);
    proxy.set({ kind: 'pause-after', bytes: PAUSE_AT });
    try {
      const leaving = await download(`${downstream.url}${path}`);
      await proxy.stalled();
      await leaving.firstBytes;
      leaving.abort();
      expect((await leaving.finished).complete).toBe(false);
      proxy.resume();
    } finally {
      proxy.set({ kind: 'pass' });
      proxy.resume();
    }
    // A HEAD answers once the download is stored (or asks the upstream, had it stopped).
    expect((await fetch(`${downstream.url}${path}`, { method: 'HEAD' })).status).toBe(200);
    expect((await wholeOf(`${downstream.url}${path}`)).equals(expected)).toBe(true);
    // The upstream was asked once: the download went on without its client.
    expect(proxy.requests.filter((r) => r.url === path).map((r) => r.method)).toEqual(['GET']);
  });

  it('of a tarball too large to keep in memory, makes a late request wait for the stored copy', async () => {
    const path = tarballPath(names.large);
    const expected = await original(names.large);
    proxy.set({ kind: 'pause-after', bytes: PAUSE_AT });
    let late: Promise<Buffer> | undefined;
    try {
      const first = await download(`${lowThreshold.url}${path}`);
      await proxy.stalled();
      await first.firstBytes;
      late = wholeOf(`${lowThreshold.url}${path}`);
      proxy.resume();
      const { bytes, complete } = await first.finished;
      expect(complete).toBe(true);
      expect(bytes.equals(expected)).toBe(true);
    } finally {
      proxy.set({ kind: 'pass' });
      proxy.resume();
    }
    expect((await late).equals(expected)).toBe(true);
    expect(proxy.count(path)).toBe(1);
  });
});
