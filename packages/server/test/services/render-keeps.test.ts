/**
 * Document cache misses with a render store (services/package-reads.ts): one read of the database
 * each, and a flood of them keeps a bounded number of renders at once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStorage, loadConfig, type Storage } from '@pkg/server';
import { buildStoredPackage, seedPackage } from '@pkg/testkit';
import { serverDeps } from '../../src/deps.js';
import { DocumentCache } from '../../src/services/document-cache.js';
import { MAX_KEEPS_IN_FLIGHT, PackageReadService } from '../../src/services/package-reads.js';
import type { PackageStore, RenderStore } from '../../src/storage/ports.js';

const NAMES = Array.from({ length: MAX_KEEPS_IN_FLIGHT * 3 }, (_, i) => `com.keeps.p${String(i).padStart(2, '0')}`);
const BASE_URL = 'http://registry.test';

let dataDir: string;
let storage: Storage;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pkg-registry-render-keeps-'));
  storage = await createStorage(loadConfig({ flags: { data: dataDir }, env: {} }));
  for (const name of NAMES) await seedPackage(storage, buildStoredPackage(name, { versions: ['1.0.0', '1.1.0', '1.2.0'] }));
});
afterAll(async () => {
  await storage.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The store's own render store, its writes held until `release` (a database slower than the reads). */
function heldRenders(renders: RenderStore): RenderStore & { started: number; release(): void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const store = {
    started: 0,
    release,
    readRenderOrPackage: renders.readRenderOrPackage.bind(renders),
    keepRender: async (...args: Parameters<RenderStore['keepRender']>) => {
      store.started++;
      await held;
      return renders.keepRender(...args);
    },
    keepRenders: async (...args: Parameters<RenderStore['keepRenders']>) => {
      store.started++;
      await held;
      return renders.keepRenders(...args);
    },
  };
  return store;
}

/** The store's packages, each read of one counted. */
function countedPackages(packages: PackageStore): PackageStore & { reads: number } {
  const counted = {
    reads: 0,
    package: (tenant: string, name: string) => {
      const handle = packages.package(tenant, name);
      return {
        tenant,
        name,
        read: () => {
          counted.reads++;
          return handle.read();
        },
        update: handle.update.bind(handle),
      };
    },
    listPackageNames: packages.listPackageNames.bind(packages),
    versionsOfPackages: packages.versionsOfPackages.bind(packages),
    readPackages: packages.readPackages.bind(packages),
    writePackages: packages.writePackages.bind(packages),
  };
  return counted;
}

function readService(
  renders: RenderStore,
  packages: PackageStore = storage.packages,
  flags: Record<string, string> = {},
): PackageReadService {
  const deps = serverDeps(loadConfig({ flags: { data: dataDir, ...flags }, env: {} }), { ...storage, renders, packages });
  return new PackageReadService(deps, new DocumentCache(storage.bus, 32 * 1024 * 1024));
}

it('answers a miss of a package never rendered from the read that looked for its render, not a second one', async () => {
  const name = 'com.keeps.fresh';
  await seedPackage(storage, buildStoredPackage(name, { versions: ['1.0.0'] }));
  const packages = countedPackages(storage.packages);
  const reads = readService(storage.renders!, packages);
  const answer = await reads.document({ tenant: '', tarballBaseUrl: BASE_URL }, name, 'full');
  expect(reads.renderStats).toEqual({ read: 0, rendered: 1 });
  expect(packages.reads).toBe(0);
  const fresh = await reads.freshDocument({ tenant: '', tarballBaseUrl: BASE_URL }, name);
  expect(answer.etag).toBe(fresh.etag);
});

it('keeps at most a bounded number of renders at once; the packages left out are kept by a later miss', async () => {
  const held = heldRenders(storage.renders!);
  const reads = readService(held);
  await Promise.all(NAMES.map((name) => reads.document({ tenant: '', tarballBaseUrl: BASE_URL }, name, 'abbreviated')));
  await new Promise((resolve) => setImmediate(resolve));
  expect(held.started).toBe(MAX_KEEPS_IN_FLIGHT);
  held.release();
  const keptNames = async () => {
    const kept: string[] = [];
    for (const name of NAMES)
      if ((await storage.renders!.readRenderOrPackage('', name, 'abbreviated', BASE_URL))?.render) kept.push(name);
    return kept;
  };
  for (let attempt = 0; attempt < 100 && (await keptNames()).length < MAX_KEEPS_IN_FLIGHT; attempt++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await keptNames()).toHaveLength(MAX_KEEPS_IN_FLIGHT);

  // Another node's misses (an empty cache) read the kept renders and keep the others, a bound at a time.
  const again = readService(storage.renders!);
  for (const name of NAMES) await again.document({ tenant: '', tarballBaseUrl: BASE_URL }, name, 'abbreviated');
  expect(again.renderStats).toEqual({ read: MAX_KEEPS_IN_FLIGHT, rendered: NAMES.length - MAX_KEEPS_IN_FLIGHT });
  for (let attempt = 0; attempt < 100 && (await keptNames()).length < NAMES.length; attempt++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await keptNames()).toEqual(NAMES);
});

/** Waits until `name` has a kept render of `form` for BASE_URL (kept without being waited for). */
async function keptRender(name: string, form: 'full' | 'abbreviated') {
  for (let attempt = 0; attempt < 200; attempt++) {
    const render = (await storage.renders!.readRenderOrPackage('', name, form, BASE_URL))?.render;
    if (render !== undefined) return render;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no ${form} render of ${name} was kept`);
}

it('renders both forms of a package it wrote for the address it keeps renders of, and nothing before it knows one', async () => {
  const name = 'com.keeps.written';
  await seedPackage(storage, buildStoredPackage(name, { versions: ['1.0.0', '1.1.0'] }));
  const reads = readService(storage.renders!);
  // No document answered yet: no address to render the tarball links with.
  reads.renderWritten('', name);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect((await storage.renders!.readRenderOrPackage('', name, 'abbreviated', BASE_URL))?.render).toBeUndefined();

  await reads.document({ tenant: '', tarballBaseUrl: BASE_URL }, 'com.keeps.fresh', 'abbreviated');
  reads.renderWritten('', name);
  await keptRender(name, 'abbreviated');
  const full = await keptRender(name, 'full');
  // Another node's first reads are those renders, and they are the documents as they are now.
  const other = readService(storage.renders!);
  const abbreviated = await other.document({ tenant: '', tarballBaseUrl: BASE_URL }, name, 'abbreviated');
  const fullAnswer = await other.document({ tenant: '', tarballBaseUrl: BASE_URL }, name, 'full');
  expect(other.renderStats).toEqual({ read: 2, rendered: 0 });
  expect(fullAnswer.etag).toBe(full.etag);
  expect(fullAnswer.etag).toBe((await other.freshDocument({ tenant: '', tarballBaseUrl: BASE_URL }, name)).etag);
  expect(JSON.parse(abbreviated.body.toString()).versions).toHaveProperty('1.1.0');
});

it('renders a bounded number of written packages at once', async () => {
  const held = heldRenders(storage.renders!);
  const reads = readService(held);
  // The address learnt from a read of a kept render (which keeps nothing).
  await keptRender('com.keeps.written', 'abbreviated');
  await reads.document({ tenant: '', tarballBaseUrl: BASE_URL }, 'com.keeps.written', 'abbreviated');
  expect(reads.renderStats).toEqual({ read: 1, rendered: 0 });
  for (const name of NAMES) reads.renderWritten('', name);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(held.started).toBe(MAX_KEEPS_IN_FLIGHT);
  held.release();
});

it('renders a package it wrote for the configured public URL before it has answered any document', async () => {
  const name = 'com.keeps.configured';
  await seedPackage(storage, buildStoredPackage(name, { versions: ['1.0.0'] }));
  const reads = readService(storage.renders!, storage.packages, { publicUrl: 'https://registry.example.com' });
  reads.renderWritten('', name);
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await storage.renders!.readRenderOrPackage('', name, 'full', 'https://registry.example.com'))?.render) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const full = (await storage.renders!.readRenderOrPackage('', name, 'full', 'https://registry.example.com'))?.render;
  expect(full).toBeDefined();
  const json = full!.coding === 'gzip' ? gunzipSync(full!.body) : full!.body;
  const doc = JSON.parse(json.toString()) as { versions: Record<string, { dist: { tarball: string } }> };
  expect(doc.versions['1.0.0']!.dist.tarball).toBe(`https://registry.example.com/${name}/-/${name}-1.0.0.tgz`);
});
