import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTarball,
  loginUser,
  publishVersion,
  request,
  sha512Integrity,
  spawnRegistry,
  type SpawnedRegistry,
} from '@pkg/testkit';
import type { UntypedJson } from '@pkg/testkit';

/**
 * A publish is all-or-nothing: the real binary is killed with SIGKILL while publishes stream
 * in, restarted on the same data directory, and every version must then be complete (document
 * and a tarball whose sha512 is its integrity) or absent, with no stray tarball left behind.
 */
const PACKAGES = ['com.acme.crash-a', 'com.acme.crash-b'];
let dataDir: string;
const running: SpawnedRegistry[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-registry-crash-'));
});
afterAll(async () => {
  for (const registry of running) registry.child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

const NO_RATE_LIMITS = {
  PKG_REGISTRY_RATE_LIMIT_PUBLISH: '0',
  PKG_REGISTRY_RATE_LIMIT_AUTHENTICATED: '0',
  PKG_REGISTRY_RATE_LIMIT_ANONYMOUS: '0',
};

async function start(): Promise<SpawnedRegistry> {
  const registry = await spawnRegistry({ dataDir, env: NO_RATE_LIMITS });
  running.push(registry);
  return registry;
}

async function blobKeys(): Promise<string[]> {
  const root = path.join(dataDir, 'tarballs');
  const keys: string[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const key = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path.join(dir, entry.name), key);
      else keys.push(key);
    }
  };
  await walk(root, '');
  return keys;
}

describe('crash safety', () => {
  it('leaves every version complete or absent after kill -9 during a stream of publishes', async () => {
    const first = await start();
    const token = await loginUser(first.url, 'crasher');
    const acknowledged = new Set<string>();
    const attempted = new Set<string>();
    let stop = false;
    let next = 0;

    // Four publishers at a time, tarballs big enough that writes take a moment.
    const publisher = async () => {
      while (!stop) {
        const n = next++;
        const name = PACKAGES[n % PACKAGES.length]!;
        const version = `1.0.${n}`;
        attempted.add(`${name}@${version}`);
        const payload = randomBytes(256 * 1024);
        const tarball = buildTarball({ name, version }, [{ path: 'Runtime/payload.bin', content: payload }]);
        try {
          const res = await publishVersion(first.url, token, name, version, { tarball, manifest: {} });
          if (res.status === 201) acknowledged.add(`${name}@${version}`);
          else throw new Error(`unexpected ${res.status}: ${res.text}`);
        } catch (err) {
          if (!stop) throw err;
        }
      }
    };
    const publishers = Array.from({ length: 4 }, publisher);
    while (acknowledged.size < 12) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    stop = true;
    expect((await first.exited).signal).toBe('SIGKILL');
    await Promise.all(publishers);

    // A crash between the tarball write and the commit, simulated exactly: a tarball no
    // document references and a half-written temporary file.
    const orphanDir = path.join(dataDir, 'tarballs', '_global', 'com.acme.never');
    await mkdir(orphanDir, { recursive: true });
    await writeFile(path.join(orphanDir, 'com.acme.never-1.0.0.tgz'), randomBytes(1000));
    await writeFile(path.join(dataDir, 'tarballs', '.incoming', 'deadbeef.tmp'), randomBytes(1000));

    const second = await start();
    // Collected in the background once the server listens.
    const removed = await second.waitForLog((line) => line.msg === 'removed orphan tarballs left by an interrupted publish');
    expect(removed?.removed).toBeGreaterThanOrEqual(1);

    const referenced = new Set<string>();
    for (const name of PACKAGES) {
      const doc = (await request(`${second.url}/${name}`)).body;
      for (const [version, record] of Object.entries<UntypedJson>(doc.versions)) {
        const res = await fetch(record.dist.tarball);
        expect(res.status, `${name}@${version}`).toBe(200);
        expect(sha512Integrity(Buffer.from(await res.arrayBuffer())), `${name}@${version}`).toBe(record.dist.integrity);
        expect(doc.time[version]).toBeDefined();
        referenced.add(`_global/${name}/${name}-${version}.tgz`);
      }
      // Every acknowledged publish survived; the others are there whole or not at all.
      for (const id of acknowledged) {
        const [pkg, version] = id.split('@') as [string, string];
        if (pkg === name) expect(doc.versions[version], id).toBeDefined();
      }
    }
    expect(referenced.size).toBeGreaterThanOrEqual(acknowledged.size);
    expect(referenced.size).toBeLessThanOrEqual(attempted.size);

    const keys = await blobKeys();
    expect(keys.filter((key) => key.startsWith('.incoming/'))).toEqual([]);
    expect(keys.filter((key) => !key.startsWith('.incoming/')).sort()).toEqual([...referenced].sort());

    // The registry keeps working after the restart.
    const token2 = await loginUser(second.url, 'crasher');
    expect((await publishVersion(second.url, token2, PACKAGES[0]!, '2.0.0')).status).toBe(201);
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
