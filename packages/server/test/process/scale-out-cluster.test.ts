import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTarball,
  loginUser,
  publishVersion,
  request,
  sha512Integrity,
  spawnRegistry,
  startOwnRedisServer,
  startScaleOutBacking,
  testPostgresUrl,
  testRedisUrl,
  type OwnRedisServer,
  type ScaleOutBacking,
  type SpawnedRegistry,
} from '@pkg/testkit';

/**
 * Two `pkg-registry serve` processes on one PostgreSQL schema, one S3 bucket and one Redis
 * (a redis-server of this test's own, so it can be stopped): what one node writes, the other
 * serves at once; a node killed mid-publish leaves every version whole or absent.
 */
const NO_RATE_LIMITS = {
  PKG_REGISTRY_RATE_LIMIT_PUBLISH: '0',
  PKG_REGISTRY_RATE_LIMIT_AUTHENTICATED: '0',
  PKG_REGISTRY_RATE_LIMIT_ANONYMOUS: '0',
};

/** How long a node may serve a document another node changed: the promise of docs/scale-out.md. */
const STALENESS_BOUND_MS = 1000;
/** How often a node writes the download counts it buffered (BatchingDownloadRecorder's default). */
const COUNT_INTERVAL_MS = 1000;
/** How often it refreshes the search rows of the packages it counted (downloadScoreInterval, set short here). */
const SCORE_INTERVAL_MS = 2000;

describe.skipIf(!testPostgresUrl || !testRedisUrl)('two nodes on PostgreSQL + S3 + Redis', () => {
  let backing: ScaleOutBacking;
  let redis: OwnRedisServer;
  const nodes: SpawnedRegistry[] = [];

  async function startNode(): Promise<SpawnedRegistry> {
    const node = await spawnRegistry({
      args: [
        ...['--database', backing.settings.database!, '--storage', backing.settings.storage!, '--redis', redis.url],
        ...['--download-score-interval', String(SCORE_INTERVAL_MS / 1000)],
      ],
      env: { ...backing.env, ...NO_RATE_LIMITS },
    });
    nodes.push(node);
    return node;
  }

  beforeAll(async () => {
    redis = await startOwnRedisServer();
    backing = await startScaleOutBacking({ redis: false });
  });
  afterAll(async () => {
    for (const node of nodes) await node.cleanup();
    await redis.close();
    await backing.close();
  });

  /** Polls `read` until `accept` holds, for at most `bound` ms; returns the last answer. */
  async function readWithin<T>(read: () => Promise<T>, accept: (value: T) => boolean, bound = STALENESS_BOUND_MS): Promise<T> {
    const deadline = Date.now() + bound;
    let value = await read();
    while (!accept(value) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      value = await read();
    }
    return value;
  }

  it('serves on B what was published on A: document, version, tarball; later changes too', async () => {
    const a = await startNode();
    const b = await startNode();
    const token = await loginUser(a.url, 'ada');
    // The token works on every node: accounts live in the shared database.
    expect((await request(`${b.url}/-/whoami`, { token })).body.username).toBe('ada');

    const tarball = buildTarball({ name: 'com.acme.shared', version: '1.0.0' }, [{ path: 'README.md', content: '# shared' }]);
    expect((await publishVersion(a.url, token, 'com.acme.shared', '1.0.0', { tarball, manifest: {} })).status).toBe(201);

    const doc = await request(`${b.url}/com.acme.shared`);
    expect(doc.status).toBe(200);
    expect(doc.body['dist-tags']).toEqual({ latest: '1.0.0' });
    const version = await request(`${b.url}/com.acme.shared/1.0.0`);
    expect(version.status).toBe(200);
    expect(version.body.dist.integrity).toBe(sha512Integrity(tarball));
    const download = await fetch(`${b.url}/com.acme.shared/-/com.acme.shared-1.0.0.tgz`);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(tarball)).toBe(true);

    const search = await request(`${b.url}/-/v1/search?text=shared`);
    expect(search.body.objects.map((o: { package: { name: string } }) => o.package.name)).toEqual(['com.acme.shared']);

    // B now has the document cached; a second publish on A must reach B's readers at once.
    expect((await publishVersion(a.url, token, 'com.acme.shared', '1.1.0')).status).toBe(201);
    const updated = await readWithin(
      () => request(`${b.url}/com.acme.shared`),
      (res) => res.body['dist-tags']?.latest === '1.1.0',
    );
    expect(updated.body['dist-tags']).toEqual({ latest: '1.1.0' });
    expect(Object.keys(updated.body.versions)).toEqual(['1.0.0', '1.1.0']);
    // B keeps its search response too; A's write reaches B's searchers within the same bound.
    const searched = await readWithin(
      () => request(`${b.url}/-/v1/search?text=shared`),
      (res) => res.body.objects?.[0]?.package.version === '1.1.0',
    );
    expect(searched.body.objects.map((o: { package: { version: string } }) => o.package.version)).toEqual(['1.1.0']);

    // A dist-tag change on B reaches A's readers the same way.
    await request(`${a.url}/com.acme.shared`);
    const tagged = await request(`${b.url}/-/package/com.acme.shared/dist-tags/stable`, {
      method: 'PUT',
      token,
      body: '1.0.0',
    });
    expect(tagged.status).toBe(200);
    const seenOnA = await readWithin(
      () => request(`${a.url}/com.acme.shared`),
      (res) => res.body['dist-tags']?.stable === '1.0.0',
    );
    expect(seenOnA.body['dist-tags']).toEqual({ latest: '1.1.0', stable: '1.0.0' });
  });

  it('downloads counted on A reach the search results B keeps (kept far longer than the score interval)', async () => {
    const [a, b] = nodes as [SpawnedRegistry, SpawnedRegistry];
    // A package of its own: no other test's downloads are on their way to its count.
    const name = 'com.acme.counted';
    const token = await loginUser(a.url, 'ada');
    expect((await publishVersion(a.url, token, name, '1.0.0')).status).toBe(201);
    const searchOnB = () => request(`${b.url}/-/v1/search?text=${name}`);
    const monthly = (res: { body: { objects?: { package: { name: string }; downloads: { monthly: number } }[] } }) =>
      res.body.objects?.find((o) => o.package.name === name)?.downloads.monthly;
    expect(monthly(await readWithin(searchOnB, (res) => monthly(res) !== undefined))).toBe(0);
    for (let i = 0; i < 3; i++) {
      const download = await fetch(`${a.url}/${name}/-/${name}-1.0.0.tgz`);
      expect(download.status).toBe(200);
      await download.arrayBuffer();
    }
    // A writes its counts within a second, refreshes the search rows of what it counted within
    // the score interval, and announces it; B then refreshes what it kept.
    const after = await readWithin(
      searchOnB,
      (res) => monthly(res) === 3,
      COUNT_INTERVAL_MS + SCORE_INTERVAL_MS + 2 * STALENESS_BOUND_MS,
    );
    expect(monthly(after)).toBe(3);
  });

  it('a deprecation on one node and an unpublish on the other reach the other at once', async () => {
    const [a, b] = nodes as [SpawnedRegistry, SpawnedRegistry];
    const token = await loginUser(a.url, 'ada');
    const name = 'com.acme.lifecycle';
    for (const version of ['1.0.0', '2.0.0']) expect((await publishVersion(a.url, token, name, version)).status).toBe(201);
    await request(`${b.url}/${name}`); // cached on B

    const doc = (await request(`${a.url}/${name}?write=true`)).body;
    doc.versions['1.0.0'].deprecated = 'Use 2.x';
    expect((await request(`${a.url}/${name}`, { method: 'PUT', token, body: doc })).status).toBe(200);
    const deprecated = await readWithin(
      () => request(`${b.url}/${name}`),
      (res) => res.body.versions?.['1.0.0']?.deprecated === 'Use 2.x',
    );
    expect(deprecated.body.versions['1.0.0'].deprecated).toBe('Use 2.x');

    await request(`${a.url}/${name}`); // cached on A
    const fresh = (await request(`${b.url}/${name}?write=true`)).body;
    expect((await request(`${b.url}/${name}/-rev/${fresh._rev}`, { method: 'DELETE', token })).status).toBe(200);
    const gone = await readWithin(
      () => request(`${a.url}/${name}`),
      (res) => res.status === 404,
    );
    expect(gone.status).toBe(404);
    expect((await fetch(`${a.url}/${name}/-/${name}-2.0.0.tgz`)).status).toBe(404);
  });

  it('keeps serving and publishing while Redis is down, and resumes invalidation when it is back', async () => {
    const a = nodes[0]!;
    const b = nodes[1]!;
    const token = await loginUser(a.url, 'ada');
    await request(`${b.url}/com.acme.shared`);

    await redis.stop();
    await a.waitForLog((entry) => /Redis is unreachable/.test(String(entry.msg)));
    await b.waitForLog((entry) => /Redis is unreachable/.test(String(entry.msg)));
    expect((await publishVersion(a.url, token, 'com.acme.shared', '1.2.0')).status).toBe(201);
    // B cannot hear A now, so it does not trust its cache: it reads the database.
    const duringOutage = await request(`${b.url}/com.acme.shared`);
    expect(duringOutage.status).toBe(200);
    expect(duringOutage.body['dist-tags'].latest).toBe('1.2.0');
    expect((await request(`${b.url}/-/health`)).body.status).toBe('degraded');
    // "Unreachable" is said once per outage, however many retries fail.
    expect(a.logEntries().filter((entry) => /Redis is unreachable/.test(String(entry.msg)))).toHaveLength(1);

    await redis.start();
    await a.waitForLog((entry) => entry.msg === 'Redis is reachable again');
    await b.waitForLog((entry) => entry.msg === 'Redis is reachable again');
    await readWithin(
      () => request(`${b.url}/-/health`),
      (res) => res.body.status === 'ok',
    );
    await request(`${b.url}/com.acme.shared`);
    expect((await publishVersion(a.url, token, 'com.acme.shared', '1.3.0')).status).toBe(201);
    const after = await readWithin(
      () => request(`${b.url}/com.acme.shared`),
      (res) => res.body['dist-tags']?.latest === '1.3.0',
    );
    expect(after.body['dist-tags'].latest).toBe('1.3.0');
  });

  it('publishes of one package on both nodes at once all land', async () => {
    const [a, b] = nodes as [SpawnedRegistry, SpawnedRegistry];
    const token = await loginUser(a.url, 'ada');
    const versions = Array.from({ length: 12 }, (_, i) => `0.1.${i}`);
    const results = await Promise.all(
      versions.map((version, i) => publishVersion((i % 2 ? b : a).url, token, 'com.acme.together', version)),
    );
    expect(results.map((res) => res.status)).toEqual(versions.map(() => 201));
    for (const node of [a, b]) {
      const doc = await readWithin(
        () => request(`${node.url}/com.acme.together`),
        (res) => Object.keys(res.body.versions ?? {}).length === versions.length,
      );
      expect(Object.keys(doc.body.versions).sort()).toEqual([...versions].sort());
    }
    const search = await request(`${b.url}/-/v1/search?text=together`);
    expect(search.body.objects.map((o: { package: { name: string } }) => o.package.name)).toEqual(['com.acme.together']);
  });

  it('after kill -9 of A during a stream of publishes, B serves every version whole or not at all', async () => {
    const a = nodes[0]!;
    const b = nodes[1]!;
    const token = await loginUser(a.url, 'ada');
    const name = 'com.acme.stream';
    const acknowledged = new Set<string>();
    let stop = false;
    let next = 0;
    const publisher = async () => {
      while (!stop) {
        const version = `1.0.${next++}`;
        const tarball = buildTarball({ name, version }, [{ path: 'Runtime/payload.bin', content: randomBytes(128 * 1024) }]);
        try {
          const res = await publishVersion(a.url, token, name, version, { tarball, manifest: {} });
          if (res.status === 201) acknowledged.add(version);
          else throw new Error(`unexpected ${res.status}: ${res.text}`);
        } catch (err) {
          if (!stop) throw err;
        }
      }
    };
    const publishers = Array.from({ length: 3 }, publisher);
    while (acknowledged.size < 8) await new Promise((resolve) => setTimeout(resolve, 5));
    a.child.kill('SIGKILL');
    stop = true;
    expect((await a.exited).signal).toBe('SIGKILL');
    await Promise.all(publishers);

    const doc = await readWithin(
      () => request(`${b.url}/${name}`),
      (res) => [...acknowledged].every((version) => res.body.versions?.[version]),
    );
    expect(doc.status).toBe(200);
    for (const version of acknowledged) expect(doc.body.versions[version], version).toBeDefined();
    for (let n = 0; n < next; n++) {
      const version = `1.0.${n}`;
      const record = await request(`${b.url}/${name}/${version}`);
      const download = await fetch(`${b.url}/${name}/-/${name}-${version}.tgz`);
      if (record.status === 404) {
        expect(doc.body.versions[version], version).toBeUndefined();
        expect(download.status, version).toBe(404);
        continue;
      }
      expect(record.status, version).toBe(200);
      expect(download.status, version).toBe(200);
      expect(sha512Integrity(Buffer.from(await download.arrayBuffer())), version).toBe(record.body.dist.integrity);
    }
    // B goes on taking publishes of the package after A's crash (A held no lock B waits on).
    expect((await publishVersion(b.url, token, name, '2.0.0')).status).toBe(201);
  });
});

describe.skipIf(!testPostgresUrl || !testRedisUrl)('rate limits shared by two nodes through Redis', () => {
  let backing: ScaleOutBacking;
  let redis: OwnRedisServer;
  const nodes: SpawnedRegistry[] = [];

  beforeAll(async () => {
    redis = await startOwnRedisServer();
    backing = await startScaleOutBacking({ redis: false });
    for (let i = 0; i < 2; i++) {
      nodes.push(
        await spawnRegistry({
          args: ['--database', backing.settings.database!, '--storage', backing.settings.storage!, '--redis', redis.url],
          env: { ...backing.env, ...NO_RATE_LIMITS, PKG_REGISTRY_RATE_LIMIT_ANONYMOUS: '6' },
        }),
      );
    }
  });
  afterAll(async () => {
    for (const node of nodes) await node.cleanup();
    await redis.close();
    await backing.close();
  });

  it('counts one caller across both nodes, and per node while Redis is down', async () => {
    const [a, b] = nodes as [SpawnedRegistry, SpawnedRegistry];
    const remaining: string[] = [];
    for (const node of [a, b, a, b, a, b]) {
      const res = await fetch(`${node.url}/com.acme.none`);
      expect(res.status).toBe(404);
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
    const refused = await request(`${b.url}/com.acme.none`);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await request(`${a.url}/com.acme.none`)).status).toBe(429);
    // Load-balancer probes are never limited.
    expect((await request(`${a.url}/-/health`)).status).toBe(200);

    await redis.stop();
    await a.waitForLog((entry) => /Redis is unreachable/.test(String(entry.msg)));
    // Each node now counts on its own, from zero: requests are served again, and limited again.
    const duringOutage = await fetch(`${a.url}/com.acme.none`);
    expect(duringOutage.status).toBe(404);
    expect(duringOutage.headers.get('x-ratelimit-remaining')).toBe('5');
    for (let i = 0; i < 5; i++) await fetch(`${a.url}/com.acme.none`);
    expect((await fetch(`${a.url}/com.acme.none`)).status).toBe(429);
    expect((await fetch(`${b.url}/com.acme.none`)).status).toBe(404);
    expect(a.logEntries().filter((entry) => /Redis is unreachable/.test(String(entry.msg)))).toHaveLength(1);
  });
});
