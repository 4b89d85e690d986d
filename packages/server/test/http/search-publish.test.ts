/** Search and download counts driven through the real write and read routes, as npm drives them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import type { UntypedJson } from '@pkg/testkit';

let registry: TestRegistry;
let token: string;

beforeAll(async () => {
  registry = await startRegistry();
  token = await loginUser(registry.url, 'maker');
});
afterAll(async () => {
  await registry.close();
});

async function searchFor(text: string) {
  const res = await request(`${registry.url}/-/v1/search?text=${encodeURIComponent(text)}`);
  expect(res.status).toBe(200);
  return res.body as { total: number; objects: { package: Record<string, UntypedJson>; flags: Record<string, unknown> }[] };
}

async function writeRev(name: string): Promise<{ rev: string; doc: Record<string, UntypedJson> }> {
  const res = await request(`${registry.url}/${name}?write=true`, { token });
  expect(res.status).toBe(200);
  return { rev: res.body._rev, doc: res.body };
}

describe('search after writes through the API', () => {
  it('finds a package the moment its publish answers', async () => {
    const published = await publishVersion(registry.url, token, 'com.maker.terrain-tools', '1.0.0', {
      manifest: {
        description: 'Sculpt and paint terrain in the editor',
        keywords: ['terrain', 'editor'],
        displayName: 'Terrain Tools',
        author: 'Maker Studio <hello@maker.example>',
        unity: '2022.3',
      },
    });
    expect(published.status).toBe(201);
    const found = await searchFor('terrai');
    expect(found.total).toBe(1);
    expect(found.objects[0]!.package).toMatchObject({
      name: 'com.maker.terrain-tools',
      version: '1.0.0',
      displayName: 'Terrain Tools',
      author: 'Maker Studio <hello@maker.example>',
      keywords: ['terrain', 'editor'],
      publisher: { username: 'maker', email: 'maker@example.com' },
    });
  });

  it('shows a new version at once', async () => {
    const published = await publishVersion(registry.url, token, 'com.maker.terrain-tools', '1.1.0', {
      manifest: { description: 'Sculpt, paint and erode terrain', keywords: ['terrain'], displayName: 'Terrain Tools' },
    });
    expect(published.status).toBe(201);
    const found = await searchFor('com.maker.terrain-tools');
    expect(found.objects[0]!.package).toMatchObject({ version: '1.1.0', description: 'Sculpt, paint and erode terrain' });
    expect((await searchFor('erode')).total).toBe(1);
  });

  it('flags a deprecation at once and ranks the package after live ones', async () => {
    await publishVersion(registry.url, token, 'com.maker.terrain-legacy', '1.0.0', {
      manifest: { description: 'Old terrain painter' },
    });
    const { doc } = await writeRev('com.maker.terrain-legacy');
    doc.versions['1.0.0'].deprecated = 'Use com.maker.terrain-tools';
    const res = await request(`${registry.url}/com.maker.terrain-legacy`, { method: 'PUT', token, body: doc });
    expect(res.status).toBe(200);
    const found = await searchFor('terrain');
    expect(found.objects.map((o) => o.package.name)).toEqual(['com.maker.terrain-tools', 'com.maker.terrain-legacy']);
    expect(found.objects[1]!.flags).toMatchObject({ deprecated: 'Use com.maker.terrain-tools' });
  });

  it('drops an unpublished package from search and /-/all at once', async () => {
    await publishVersion(registry.url, token, 'com.maker.short-lived', '1.0.0', { manifest: { description: 'ephemeral' } });
    expect((await searchFor('ephemeral')).total).toBe(1);
    const { rev } = await writeRev('com.maker.short-lived');
    const res = await request(`${registry.url}/com.maker.short-lived/-rev/${rev}`, { method: 'DELETE', token });
    expect(res.status).toBe(200);
    expect((await searchFor('ephemeral')).total).toBe(0);
    const all = await request(`${registry.url}/-/all`);
    expect(Object.keys(all.body)).not.toContain('com.maker.short-lived');
    expect(Object.keys(all.body)).toContain('com.maker.terrain-tools');
  });
});

describe('download counts from tarball downloads', () => {
  it('counts each GET of a tarball for its version and day; HEAD and 304 are not downloads', async () => {
    const tarballUrl = `${registry.url}/com.maker.terrain-tools/-/com.maker.terrain-tools-1.1.0.tgz`;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(tarballUrl);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const head = await fetch(tarballUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const etag = head.headers.get('etag')!;
    expect((await fetch(tarballUrl, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const old = await fetch(`${registry.url}/com.maker.terrain-tools/-/com.maker.terrain-tools-1.0.0.tgz`);
    await old.arrayBuffer();

    await registry.services.downloads.flush();
    const point = await request(`${registry.url}/downloads/point/last-day/com.maker.terrain-tools`);
    expect(point.body).toMatchObject({ downloads: 4, package: 'com.maker.terrain-tools' });
    const today = new Date().toISOString().slice(0, 10);
    const range = await request(`${registry.url}/downloads/range/last-week/com.maker.terrain-tools`);
    expect(range.body.downloads.at(-1)).toEqual({ day: today, downloads: 4 });

    const found = await searchFor('com.maker.terrain-tools');
    expect((found.objects[0] as UntypedJson).downloads).toEqual({ weekly: 4, monthly: 4 });
    expect((found.objects[0] as UntypedJson).score.detail.popularity).toBe(1);
  });
});
