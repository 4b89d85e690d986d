import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantAdmin } from '@pkg/server';
import {
  loginOn,
  publishBody,
  rawRequest,
  registryHost,
  startRegistry,
  type HostResponse,
  type RegistryHost,
  type TestRegistry,
} from '@pkg/testkit';
import type { StoredRender } from '../../src/storage/ports.js';

// Rendered documents kept in the metadata database (rendered-documents.test.ts) on tenant
// registries served on subdomains: each registry keeps its own renders, with its own host in the
// tarball links, and no registry is ever answered another's, nor loses its renders to another's
// writes. Both profiles: SQLite and PostgreSQL.

const DOMAIN = 'registry.test';
/** One package name published on every registry, each with a dependency only its own documents hold. */
const NAME = 'com.acme.shared';
const ABBREVIATED = 'application/vnd.npm.install-v1+json';
const gzipped = { accept: ABBREVIATED, 'accept-encoding': 'gzip' };

type Which = 'global' | 'acme' | 'beta';
const WHICH: readonly Which[] = ['global', 'acme', 'beta'];
const TENANT: Record<Which, string> = { global: '', acme: 'acme', beta: 'beta' };

let first: TestRegistry;
let tokens: Record<Which, string>;

/**
 * The registry `which` on `node`: the bare domain for the global one, `<tenant>.<domain>` for a
 * tenant; always with the first node's port, as if every node were behind one address.
 */
function on(node: TestRegistry, which: Which): RegistryHost {
  const name = which === 'global' ? DOMAIN : `${which}.${DOMAIN}`;
  return registryHost(node.url, `${name}:${new URL(first.url).port}`);
}

/** A dependency only `which`'s versions have (the abbreviated form keeps dependencies, not descriptions). */
const markerOf = (which: Which): Record<string, string> => ({ [`com.marker.${which}`]: '^1.0.0' });

async function publish(which: Which, version: string, node = first): Promise<void> {
  const { body } = publishBody(NAME, version, { manifest: { dependencies: markerOf(which) } });
  const res = await on(node, which).request(`/${NAME}`, { method: 'PUT', token: tokens[which], body });
  expect(res.status, res.text).toBe(201);
}

beforeAll(async () => {
  first = await startRegistry({ settings: { registryDomain: DOMAIN } });
  const admin = new TenantAdmin(first.storage);
  await admin.create('acme', {});
  await admin.create('beta', {});
  tokens = { global: '', acme: '', beta: '' };
  for (const which of WHICH) tokens[which] = await loginOn(on(first, which), 'alice');
  // Three versions: documents large enough to be kept gzipped.
  for (const which of WHICH) for (const version of ['1.0.0', '1.1.0', '1.2.0']) await publish(which, version);
});
afterAll(async () => {
  await first?.close();
});

/** A second node on the same database (a restart, another process): its memory holds nothing. */
function secondNode(): Promise<TestRegistry> {
  return startRegistry({ settings: { registryDomain: DOMAIN }, dataDir: first.dataDir });
}

/**
 * Waits for the render a registry keeps after a read or a write (waited for by neither); with
 * `other`, for one with another ETag than that.
 */
async function keptRender(which: Which, form: StoredRender['form'] = 'abbreviated', other?: StoredRender): Promise<StoredRender> {
  const baseUrl = on(first, which).origin;
  for (let attempt = 0; attempt < 200; attempt++) {
    const render = (await first.storage.renders!.readRenderOrPackage(TENANT[which], NAME, form, baseUrl))?.render;
    if (render !== undefined && render.etag !== other?.etag) return render;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no ${form} render was kept for ${which} at ${baseUrl}`);
}

/** The render `which` keeps now for its own base URL, if any. */
async function renderOf(which: Which): Promise<StoredRender | undefined> {
  return (await first.storage.renders!.readRenderOrPackage(TENANT[which], NAME, 'abbreviated', on(first, which).origin))?.render;
}

async function rendersMetric(node: TestRegistry): Promise<{ read: number; rendered: number }> {
  const text = (await rawRequest(`${node.url}/-/metrics`)).body.toString();
  const found = { read: 0, rendered: 0 };
  for (const match of text.matchAll(/^pkg_registry_document_renders_total\{result="(read|rendered)"\} (\d+)$/gm))
    found[match[1] as 'read' | 'rendered'] = Number(match[2]);
  return found;
}

interface Abbreviated {
  'dist-tags': Record<string, string>;
  versions: Record<string, { dependencies?: Record<string, string>; dist: { tarball: string } }>;
}

/** Reads `which`'s abbreviated document, gzipped, from `node`. */
async function readOn(node: TestRegistry, which: Which): Promise<{ res: HostResponse; doc: Abbreviated }> {
  const res = await on(node, which).request(`/${NAME}`, { headers: gzipped });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-encoding')).toBe('gzip');
  return { res, doc: JSON.parse(gunzipSync(res.bytes).toString()) as Abbreviated };
}

/** The document is `which`'s: its marker in every version, its host in every tarball link. */
function expectDocumentOf(which: Which, doc: Abbreviated): void {
  const versions = Object.values(doc.versions);
  expect(versions.length).toBeGreaterThan(0);
  for (const record of versions) {
    expect(record.dependencies).toEqual(markerOf(which));
    expect(record.dist.tarball.startsWith(`${on(first, which).origin}/${NAME}/-/`)).toBe(true);
  }
}

/** Every registry's render kept on `first`, each read there once. */
async function keepAll(): Promise<Record<Which, StoredRender>> {
  const kept = {} as Record<Which, StoredRender>;
  for (const which of WHICH) {
    await readOn(first, which);
    kept[which] = await keptRender(which);
  }
  return kept;
}

describe('rendered documents kept in the database, on tenant registries served on subdomains', () => {
  it('a tenant keeps its own renders, with its own host in dist.tarball, and another node answers them as they are', async () => {
    const answers = {} as Record<Which, HostResponse>;
    for (const which of WHICH) {
      const { res, doc } = await readOn(first, which);
      expectDocumentOf(which, doc);
      answers[which] = res;
      const kept = await keptRender(which);
      expect(kept.coding).toBe('gzip');
      expect(kept.body.equals(res.bytes)).toBe(true);
    }
    // Kept under the registry and its base URL only: no registry holds a render for another's host.
    for (const which of WHICH)
      for (const other of WHICH.filter((w) => w !== which)) {
        const stray = (
          await first.storage.renders!.readRenderOrPackage(TENANT[which], NAME, 'abbreviated', on(first, other).origin)
        )?.render;
        expect(stray, `${which}'s render for ${other}'s host`).toBeUndefined();
      }

    const second = await secondNode();
    try {
      for (const which of WHICH) {
        const { res } = await readOn(second, which);
        expect(res.bytes.equals(answers[which].bytes), which).toBe(true);
        expect(res.headers.get('etag')).toBe(answers[which].headers.get('etag'));
      }
      expect(await rendersMetric(second)).toEqual({ read: WHICH.length, rendered: 0 });
    } finally {
      await second.close();
    }
  });

  it("never answers one registry's render to another: a node that finds only the other's renders its own", async () => {
    for (const which of WHICH) {
      await keepAll();
      const second = await secondNode();
      try {
        // `which` changes (the write drops its renders) on a node that has answered no document,
        // so renders none ahead of a read (it knows no address of the registry yet); the others
        // keep theirs.
        await publish(which, `2.0.${WHICH.indexOf(which)}-${which}`, second);
        expect(await renderOf(which)).toBeUndefined();
        const { doc } = await readOn(second, which);
        expectDocumentOf(which, doc);
        expect(Object.keys(doc.versions)).toContain(`2.0.${WHICH.indexOf(which)}-${which}`);
        expect(await rendersMetric(second)).toEqual({ read: 0, rendered: 1 });
        // and each other registry is answered its own render, never the one just made
        for (const other of WHICH.filter((w) => w !== which)) {
          const { doc: theirs } = await readOn(second, other);
          expectDocumentOf(other, theirs);
        }
        expect(await rendersMetric(second)).toEqual({ read: WHICH.length - 1, rendered: 1 });
      } finally {
        await second.close();
      }
    }
  });

  it("a write on one registry neither drops nor changes another's render of the same name", async () => {
    const before = await keepAll();
    // A dist-tag on the tenant: a change of the package's row as any write is.
    const tag = await on(first, 'acme').request(`/-/package/${NAME}/dist-tags/stable`, {
      method: 'PUT',
      token: tokens.acme,
      body: '1.0.0',
    });
    expect(tag.status, tag.text).toBe(200);
    // The writing node renders the tenant's new document for the tenant's host; the others' stay
    // as they were.
    const retagged = await keptRender('acme', 'abbreviated', before.acme);
    expectDocumentOf('acme', JSON.parse(gunzipSync(retagged.body).toString()) as Abbreviated);
    for (const which of ['global', 'beta'] as const) {
      const render = await renderOf(which);
      expect(render?.etag, which).toBe(before[which].etag);
      expect(render?.body.equals(before[which].body), which).toBe(true);
    }
    // The tenant's next read is that render.
    const { res, doc } = await readOn(first, 'acme');
    expect(doc['dist-tags'].stable).toBe('1.0.0');
    expect(res.bytes.equals(retagged.body)).toBe(true);

    // And the other way: a publish on the global registry leaves the tenants' renders.
    const tenants = await keepAll();
    await publish('global', '3.0.0');
    const republished = await keptRender('global', 'abbreviated', tenants.global);
    expectDocumentOf('global', JSON.parse(gunzipSync(republished.body).toString()) as Abbreviated);
    for (const which of ['acme', 'beta'] as const) expect((await renderOf(which))?.etag, which).toBe(tenants[which].etag);
  });

  it("with a configured public URL and CDN, keeps the global registry's renders for the CDN and a tenant's for its own host", async () => {
    const settings = { registryDomain: DOMAIN, publicUrl: `https://${DOMAIN}`, cdnUrl: 'https://cdn.example.com' };
    const configured = await startRegistry({ settings });
    const bases: Record<'global' | 'acme', string> = { global: 'https://cdn.example.com', acme: `https://acme.${DOMAIN}` };
    const hostOf = (node: TestRegistry, which: 'global' | 'acme') =>
      registryHost(node.url, which === 'global' ? DOMAIN : `acme.${DOMAIN}`);
    try {
      await new TenantAdmin(configured.storage).create('acme', {});
      const answers = {} as Record<'global' | 'acme', HostResponse>;
      for (const which of ['global', 'acme'] as const) {
        const host = hostOf(configured, which);
        const token = await loginOn(host, 'alice');
        for (const version of ['1.0.0', '1.1.0', '1.2.0']) {
          const { body } = publishBody(NAME, version, { manifest: { dependencies: markerOf(which) } });
          expect((await host.request(`/${NAME}`, { method: 'PUT', token, body })).status).toBe(201);
        }
        answers[which] = await host.request(`/${NAME}`, { headers: gzipped });
        const doc = JSON.parse(gunzipSync(answers[which].bytes).toString()) as Abbreviated;
        expect(doc.versions['1.0.0']!.dist.tarball).toBe(`${bases[which]}/${NAME}/-/${NAME}-1.0.0.tgz`);
        expect(doc.versions['1.0.0']!.dependencies).toEqual(markerOf(which));
      }
      for (const [which, other] of [
        ['global', 'acme'],
        ['acme', 'global'],
      ] as const) {
        const tenant = TENANT[which];
        let kept: StoredRender | undefined;
        for (let attempt = 0; attempt < 200 && kept === undefined; attempt++) {
          kept = (await configured.storage.renders!.readRenderOrPackage(tenant, NAME, 'abbreviated', bases[which]))?.render;
          if (kept === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(kept?.body.equals(answers[which].bytes), which).toBe(true);
        expect(
          (await configured.storage.renders!.readRenderOrPackage(tenant, NAME, 'abbreviated', bases[other]))?.render,
        ).toBeUndefined();
      }
      // Another node with the same configuration answers each registry its own render.
      const second = await startRegistry({ settings, dataDir: configured.dataDir });
      try {
        for (const which of ['global', 'acme'] as const) {
          const res = await hostOf(second, which).request(`/${NAME}`, { headers: gzipped });
          expect(res.bytes.equals(answers[which].bytes), which).toBe(true);
        }
        expect(await rendersMetric(second)).toEqual({ read: 2, rendered: 0 });
      } finally {
        await second.close();
      }
    } finally {
      await configured.close();
    }
  });

  it("a tenant's deletion drops its renders and no other registry's", async () => {
    const admin = new TenantAdmin(first.storage);
    await admin.create('gone', {});
    const gone = registryHost(first.url, `gone.${DOMAIN}`);
    const token = await loginOn(gone, 'alice');
    const { body } = publishBody(NAME, '1.0.0');
    expect((await gone.request(`/${NAME}`, { method: 'PUT', token, body })).status).toBe(201);
    expect((await gone.request(`/${NAME}`, { headers: gzipped })).status).toBe(200);
    const kept = await keepAll();
    for (let attempt = 0; ; attempt++) {
      if ((await first.storage.renders!.readRenderOrPackage('gone', NAME, 'abbreviated', gone.origin))?.render) break;
      if (attempt > 200) throw new Error('no render was kept for the tenant gone');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    await admin.delete('gone');
    expect((await first.storage.renders!.readRenderOrPackage('gone', NAME, 'abbreviated', gone.origin))?.render).toBeUndefined();
    for (const which of WHICH) expect((await renderOf(which))?.etag, which).toBe(kept[which].etag);
  });
});
