import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, rawRequest, request, startRegistry, type RawResponse, type TestRegistry } from '@pkg/testkit';
import type { StoredRender } from '../../src/storage/ports.js';

// Documents read once are kept rendered in the metadata database (services/package-reads.ts): a
// node whose memory does not hold one (another node, a restart, an entry evicted) answers from
// that row. These tests run on both profiles: SQLite and PostgreSQL.

const NAME = 'com.acme.rendered';
const ABBREVIATED = 'application/vnd.npm.install-v1+json';

let first: TestRegistry;
let token: string;
beforeAll(async () => {
  first = await startRegistry();
  token = await loginUser(first.url, 'alice');
  // Three versions: documents large enough to be kept gzipped.
  for (const version of ['1.0.0', '1.1.0', '1.2.0']) {
    const published = await publishVersion(first.url, token, NAME, version, { manifest: { description: 'Kept rendered' } });
    expect(published.status).toBe(201);
  }
});
afterAll(async () => {
  await first.close();
});

const gzipped = { accept: ABBREVIATED, 'accept-encoding': 'gzip' };

/**
 * Waits for the render the registry keeps after a read or a write (waited for by neither); with
 * `other`, for one with another ETag than that.
 */
async function keptRender(
  registry: TestRegistry,
  form: StoredRender['form'],
  baseUrl: string,
  other?: StoredRender,
  name = NAME,
): Promise<StoredRender> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const render = (await registry.storage.renders!.readRenderOrPackage('', name, form, baseUrl))?.render;
    if (render !== undefined && render.etag !== other?.etag) return render;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no ${other ? 'new ' : ''}${form} render of ${name} was kept for ${baseUrl}`);
}

async function rendersMetric(registry: TestRegistry): Promise<Record<string, number>> {
  const text = (await rawRequest(`${registry.url}/-/metrics`)).body.toString();
  const found: Record<string, number> = {};
  for (const match of text.matchAll(/^pkg_registry_document_renders_total\{result="(\w+)"\} (\d+)$/gm))
    found[match[1]!] = Number(match[2]);
  return found;
}

function sameAnswer(a: RawResponse, b: RawResponse): void {
  expect(b.status).toBe(200);
  expect(b.body.equals(a.body)).toBe(true);
  for (const header of ['etag', 'last-modified', 'content-type', 'content-encoding'])
    expect(b.headers[header]).toBe(a.headers[header]);
}

/** What `registry` answers to a request for `first`'s host (both nodes behind one address). */
function asFirst(registry: TestRegistry, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(`${registry.url}/${NAME}`, { headers: { ...headers, host: new URL(first.url).host } });
}

describe('rendered documents kept in the database', () => {
  it('answer a node that has not read the package with the same bytes and validators, without rendering it again', async () => {
    const abbreviated = await rawRequest(`${first.url}/${NAME}`, { headers: gzipped });
    const full = await rawRequest(`${first.url}/${NAME}`);
    const fullGzipped = await rawRequest(`${first.url}/${NAME}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(abbreviated.headers['content-encoding']).toBe('gzip');
    expect(full.headers['content-encoding']).toBeUndefined();
    const keptAbbreviated = await keptRender(first, 'abbreviated', first.url);
    expect(keptAbbreviated.coding).toBe('gzip');
    expect(keptAbbreviated.body.equals(abbreviated.body)).toBe(true);
    expect(gunzipSync(keptAbbreviated.body).length).toBe(keptAbbreviated.size);
    const keptFull = await keptRender(first, 'full', first.url);
    expect(gunzipSync(keptFull.body).equals(full.body)).toBe(true);

    // A second node on the same database (a restart, another process): its memory holds nothing.
    const second = await startRegistry({ dataDir: first.dataDir });
    try {
      sameAnswer(abbreviated, await asFirst(second, gzipped));
      // The identity bytes, inflated from the kept gzip, are the bytes the first node rendered.
      sameAnswer(full, await asFirst(second));
      sameAnswer(fullGzipped, await asFirst(second, { 'accept-encoding': 'gzip' }));
      expect(await rendersMetric(second)).toEqual({ read: 2, rendered: 0 });
      // The validators carry over: a client's copy is still current.
      const etag = String(abbreviated.headers.etag);
      const revalidated = await rawRequest(`${second.url}/${NAME}`, {
        headers: { ...gzipped, host: new URL(first.url).host, 'if-none-match': etag },
      });
      expect(revalidated.status).toBe(304);
    } finally {
      await second.close();
    }
  });

  it('are never served once the package has changed: the write drops them, and renders the new document for the next read', async () => {
    const before = await keptRender(first, 'abbreviated', first.url);
    const published = await publishVersion(first.url, token, NAME, '2.0.0', { manifest: { description: 'Kept rendered' } });
    expect(published.status).toBe(201);
    // The node that wrote it renders both forms of the new document (the store drops the old ones
    // in the write's transaction: test/contract/render-store.contract.ts).
    const abbreviated = await keptRender(first, 'abbreviated', first.url, before);
    const doc = JSON.parse(gunzipSync(abbreviated.body).toString()) as { 'dist-tags': Record<string, string>; versions: object };
    expect(doc['dist-tags'].latest).toBe('2.0.0');
    expect(Object.keys(doc.versions)).toContain('2.0.0');
    const full = await keptRender(first, 'full', first.url);
    expect(JSON.parse(gunzipSync(full.body).toString())['dist-tags'].latest).toBe('2.0.0');
    const second = await startRegistry({ dataDir: first.dataDir });
    try {
      // The first read on another node is that render, as it is: nothing to render there.
      const after = await asFirst(second, gzipped);
      expect(after.status).toBe(200);
      expect(after.body.equals(abbreviated.body)).toBe(true);
      expect(after.headers.etag).toBe(`${abbreviated.etag.slice(0, -1)}-gzip"`);
      expect(await rendersMetric(second)).toEqual({ read: 1, rendered: 0 });
    } finally {
      await second.close();
    }
  });

  it('are made by each write of the writing node (a dist-tag too), and not by a node that has not answered a document', async () => {
    const before = await keptRender(first, 'abbreviated', first.url);
    const tagged = await request(`${first.url}/-/package/${NAME}/dist-tags/stable`, {
      method: 'PUT',
      token,
      body: '1.1.0',
    });
    expect(tagged.status).toBeLessThan(300);
    const retagged = await keptRender(first, 'abbreviated', first.url, before);
    expect(JSON.parse(gunzipSync(retagged.body).toString())['dist-tags'].stable).toBe('1.1.0');

    // A fresh node knows no address of the registry until it answers a document under one: it
    // publishes, and keeps no render for an address it might not serve under.
    const other = 'com.acme.rendered-later';
    const fresh = await startRegistry({ dataDir: first.dataDir });
    try {
      const freshToken = await loginUser(fresh.url, 'alice');
      const published = await publishVersion(fresh.url, freshToken, other, '1.0.0', { manifest: { description: 'Kept later' } });
      expect(published.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await fresh.storage.renders!.readRenderOrPackage('', other, 'abbreviated', fresh.url))?.render).toBeUndefined();
      // Once it has answered one, its writes are rendered for that address.
      expect((await rawRequest(`${fresh.url}/${NAME}`, { headers: gzipped })).status).toBe(200);
      expect(
        (await publishVersion(fresh.url, freshToken, other, '1.1.0', { manifest: { description: 'Kept later' } })).status,
      ).toBe(201);
      const kept = await keptRender(fresh, 'abbreviated', fresh.url, undefined, other);
      expect(Object.keys(JSON.parse(gunzipSync(kept.body).toString()).versions)).toEqual(['1.0.0', '1.1.0']);
    } finally {
      await fresh.close();
    }
  });

  it('are kept for the first host name a node answered; another host name still gets its own tarball links, rendered in memory', async () => {
    await request(`${first.url}/${NAME}`, { headers: { accept: ABBREVIATED } });
    const kept = await keptRender(first, 'abbreviated', first.url);
    const before = await rendersMetric(first);
    const port = new URL(first.url).port;
    const other = await rawRequest(`${first.url}/${NAME}`, { headers: { ...gzipped, host: `localhost:${port}` } });
    expect(other.status).toBe(200);
    const doc = JSON.parse(gunzipSync(other.body).toString()) as { versions: Record<string, { dist: { tarball: string } }> };
    for (const record of Object.values(doc.versions))
      expect(record.dist.tarball.startsWith(`http://localhost:${port}/`)).toBe(true);
    // Rendered, neither read from nor kept in the database: the first host's render stays.
    expect(await rendersMetric(first)).toEqual({ read: before.read, rendered: (before.rendered ?? 0) + 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(
      (await first.storage.renders!.readRenderOrPackage('', NAME, 'abbreviated', `http://localhost:${port}`))?.render,
    ).toBeUndefined();
    expect((await first.storage.renders!.readRenderOrPackage('', NAME, 'abbreviated', first.url))?.render?.etag).toBe(kept.etag);
  });

  it("replace another address's renders on a node that answers under a new one (a restart on another port)", async () => {
    await keptRender(first, 'abbreviated', first.url);
    const second = await startRegistry({ dataDir: first.dataDir });
    try {
      const answer = await rawRequest(`${second.url}/${NAME}`, { headers: gzipped });
      expect(answer.status).toBe(200);
      const kept = await keptRender(second, 'abbreviated', second.url);
      expect(kept.body.equals(answer.body)).toBe(true);
      expect((await second.storage.renders!.readRenderOrPackage('', NAME, 'abbreviated', first.url))?.render).toBeUndefined();
    } finally {
      await second.close();
    }
  });
});
