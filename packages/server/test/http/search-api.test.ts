import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStoredPackage, request, seedPackage, startRegistry, type TestRegistry } from '@pkg/testkit';

let registry: TestRegistry;
const SCOPE = 'com.studio';
const SCOPED = 300;

beforeAll(async () => {
  registry = await startRegistry();
  for (let i = 0; i < SCOPED; i++) {
    const name = `${SCOPE}.pkg-${String(i).padStart(3, '0')}`;
    await seedPackage(
      registry.storage,
      buildStoredPackage(name, {
        displayName: `Studio Package ${i}`,
        description: `Package number ${i} of the studio`,
        keywords: ['studio'],
        author: 'Studio Dev <dev@studio.example>',
        versions: ['1.0.0', '1.1.0'],
        unity: '2021.3',
        repository: 'https://git.example/studio/pkg',
        homepage: 'https://studio.example',
        bugs: 'https://git.example/studio/pkg/issues',
      }),
    );
  }
  // Around the scope, but outside it: the listing must not count them.
  await seedPackage(registry.storage, buildStoredPackage('com.other.tool', { description: 'a tool' }));
  await seedPackage(registry.storage, buildStoredPackage('com.other.helper', { description: 'helps', keywords: ['tool'] }));
});
afterAll(async () => {
  await registry.close();
});

function search(query: string) {
  return request(`${registry.url}/-/v1/search?${query}`);
}

describe('GET /-/v1/search response', () => {
  it('carries the SPEC fields in npm shape, as application/json', async () => {
    const res = await search('text=com.studio.pkg-007');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.total).toBe(1);
    expect(Date.parse(res.body.time)).not.toBeNaN();
    const [object] = res.body.objects;
    expect(object.package).toEqual({
      name: 'com.studio.pkg-007',
      version: '1.1.0',
      description: 'Package number 7 of the studio',
      keywords: ['studio'],
      author: 'Studio Dev <dev@studio.example>',
      date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      displayName: 'Studio Package 7',
      license: 'MIT',
      links: {
        homepage: 'https://studio.example',
        repository: 'https://git.example/studio/pkg',
        bugs: 'https://git.example/studio/pkg/issues',
      },
      publisher: { username: 'alice', email: 'alice@example.com' },
      maintainers: [{ username: 'alice', email: 'alice@example.com' }],
      time: { modified: object.package.date },
      // Unity's entry says whether the version holds Unity's package signature: this one does not.
      engines: [{ engine: 'unity', min: '2021.3', signature: null }],
    });
    expect(object.downloads).toEqual({ weekly: 0, monthly: 0 });
    expect(object.updated).toBe(object.package.date);
    expect(object.time).toEqual({ modified: object.package.date });
    expect(object.flags).toEqual({ insecure: 0 });
    for (const value of [object.score.final, ...Object.values(object.score.detail), object.searchScore]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
    expect(Object.keys(object.score.detail).sort()).toEqual(['maintenance', 'popularity', 'quality']);
  });

  it('defaults to 20 results from 0, with the total of all matches', async () => {
    const res = await search(`text=${SCOPE}`);
    expect(res.body.objects).toHaveLength(20);
    expect(res.body.total).toBe(SCOPED);
  });
});

describe('paging', () => {
  it('serves the last, partial page', async () => {
    const res = await search(`text=${SCOPE}&size=40&from=280`);
    expect(res.body.objects).toHaveLength(20);
    expect(res.body.total).toBe(SCOPED);
  });

  it('answers an empty page with the right total when from is past the end', async () => {
    for (const from of [300, 301, 5000]) {
      const res = await search(`text=${SCOPE}&from=${from}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ objects: [], total: SCOPED });
    }
  });

  it('answers size=0 with no objects and the total', async () => {
    const res = await search(`text=${SCOPE}&size=0`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ objects: [], total: SCOPED });
  });

  it('serves size=250 and refuses 251', async () => {
    expect((await search(`text=${SCOPE}&size=250`)).body.objects).toHaveLength(250);
    const res = await search(`text=${SCOPE}&size=251`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST' });
    // The specific reason, in `error` too: npm shows only `error`.
    expect(res.body.error).toBe(res.body.details);
    expect(res.body.error).not.toBe('Bad request');
  });

  it('orders word queries and dotted queries alike, page after page', async () => {
    // `pkg` is a plain word (its first pages come from the names that start with it), `com.studio`
    // is not: both put the 300 packages in one tier, so in the same order.
    const pages = async (text: string) => {
      const names: string[] = [];
      for (let from = 0; from < SCOPED; from += 70) {
        const res = await search(`text=${text}&size=70&from=${from}`);
        expect(res.body.total).toBe(SCOPED);
        names.push(...res.body.objects.map((o: { package: { name: string } }) => o.package.name));
      }
      return names;
    };
    expect(await pages('pkg')).toEqual(await pages(SCOPE));
  });

  it('pages without gaps or repeats', async () => {
    const seen: string[] = [];
    for (let from = 0; from < SCOPED; from += 70) {
      const res = await search(`text=${SCOPE}&size=70&from=${from}`);
      seen.push(...res.body.objects.map((o: { package: { name: string } }) => o.package.name));
    }
    expect(seen).toHaveLength(SCOPED);
    expect(new Set(seen).size).toBe(SCOPED);
  });
});

describe('the Unity Editor listing of a scoped registry', () => {
  it('gets every package of the scope in pages of 250, with the total', async () => {
    const first = await search(`text=${SCOPE}&from=0&size=250`);
    const second = await search(`text=${SCOPE}&from=250&size=250`);
    for (const res of [first, second]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.total).toBe(SCOPED);
    }
    expect(first.body.objects).toHaveLength(250);
    expect(second.body.objects).toHaveLength(50);
    const names = [...first.body.objects, ...second.body.objects].map((o: { package: { name: string } }) => o.package.name);
    expect(new Set(names).size).toBe(SCOPED);
    expect(names.every((n) => n.startsWith(`${SCOPE}.`))).toBe(true);
    expect(first.body.objects[0].package.displayName).toMatch(/^Studio Package /);
    expect(first.body.objects[0].package.time.modified).toEqual(expect.any(String));
  });

  it('falls back to /-/all: name → summary with the latest version, for every package', async () => {
    const res = await request(`${registry.url}/-/all`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(typeof res.body._updated).toBe('number');
    const names = Object.keys(res.body).filter((k) => k !== '_updated');
    expect(names).toHaveLength(SCOPED + 2);
    expect(names.filter((n) => n.startsWith(`${SCOPE}.`))).toHaveLength(SCOPED);
    expect(res.body['com.studio.pkg-042']).toEqual({
      name: 'com.studio.pkg-042',
      displayName: 'Studio Package 42',
      description: 'Package number 42 of the studio',
      'dist-tags': { latest: '1.1.0' },
      versions: { '1.1.0': 'latest' },
      time: { modified: expect.any(String) },
      keywords: ['studio'],
      author: { name: 'Studio Dev', email: 'dev@studio.example' },
      maintainers: [{ name: 'alice', email: 'alice@example.com' }],
      license: 'MIT',
      homepage: 'https://studio.example',
      repository: { type: 'git', url: 'https://git.example/studio/pkg' },
      bugs: { url: 'https://git.example/studio/pkg/issues' },
    });
  });
});

describe('bad queries', () => {
  const bad = [
    ['no text', ''],
    ['empty text', 'text='],
    ['blank text', 'text=%20%20'],
    ['text given twice', 'text=a&text=b'],
    ['negative size', 'text=studio&size=-1'],
    ['size not a number', 'text=studio&size=ten'],
    ['fractional size', 'text=studio&size=1.5'],
    ['size too large', 'text=studio&size=251'],
    ['huge size', 'text=studio&size=99999999999999999999'],
    ['negative from', 'text=studio&from=-1'],
    ['from not a number', 'text=studio&from=abc'],
    ['from too deep', 'text=studio&from=100001'],
    ['text too long', `text=${'a'.repeat(513)}`],
    ['unknown is: qualifier', 'text=is:famous'],
    ['qualifier without value', 'text=keywords:'],
    ['too many terms', `text=${Array.from({ length: 17 }, (_, i) => `t${i}`).join('+')}`],
  ];
  it.each(bad)('%s → 400 BAD_REQUEST', async (_label, query) => {
    const res = await search(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST' });
    expect(typeof res.body.details).toBe('string');
    expect(res.body.error).toBe(res.body.details);
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('treats FTS syntax and SQL in the text as plain text', async () => {
    for (const text of ['a" OR "b', 'NEAR(a b)', "'; DROP TABLE packages; --", '{name}:x', 'zq*', '^x', 'x AND', 'студия']) {
      const res = await search(`text=${encodeURIComponent(text)}`);
      expect(res.status, text).toBe(200);
      expect(res.body.total, text).toBe(0);
    }
    expect((await search(`text=${SCOPE}`)).body.total).toBe(SCOPED);
  });

  it('refuses a text with nothing to search for', async () => {
    for (const text of ['"', '*', '- .', 'boost-exact:false']) {
      const res = await search(`text=${encodeURIComponent(text)}`);
      expect(res.status, text).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
    }
  });
});
