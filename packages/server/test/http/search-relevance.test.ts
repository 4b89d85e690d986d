import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStoredPackage, request, seedPackage, startRegistry, type TestRegistry } from '@pkg/testkit';

let registry: TestRegistry;

/** Names of the results of a search, in order. */
async function names(text: string, extra = ''): Promise<string[]> {
  const res = await request(`${registry.url}/-/v1/search?text=${encodeURIComponent(text)}${extra}`);
  expect(res.status).toBe(200);
  return res.body.objects.map((o: { package: { name: string } }) => o.package.name);
}

const RICH = {
  readme: `# Rich\n\n${'A complete readme with usage, examples and notes. '.repeat(8)}`,
  repository: 'https://git.example/rich/rich',
  keywords: ['one', 'two', 'three'],
  license: 'MIT',
};

// A fixed corpus: each package sits in one relevance tier for the query "input".
const corpus = [
  // tier 1 (a name part starts with "input"); the richer metadata wins the tie on score.final
  buildStoredPackage('com.vendor.input-system', { description: 'Input handling for games', readme: '', keywords: ['devices'] }),
  buildStoredPackage('com.other.inputfield', { description: 'A text field component', ...RICH }),
  // tier 2 ("input" inside a name part)
  buildStoredPackage('com.other.textinput', { description: 'Multiline text entry' }),
  // tier 3 (keyword)
  buildStoredPackage('com.misc.controls', { description: 'Gamepad and keyboard bindings', keywords: ['input', 'controller'] }),
  // tier 4 (description; author)
  buildStoredPackage('com.misc.gamepad', { description: 'Reads input from gamepads' }),
  buildStoredPackage('com.misc.author-match', {
    description: 'Localization tables',
    author: 'Input Labs <dev@inputlabs.io>',
    maintainers: ['bob'],
  }),
  // deprecated: ranks after every live match
  buildStoredPackage('com.old.input-legacy', { description: 'Old input layer', deprecated: 'Use com.vendor.input-system' }),
  // no match for "input"
  buildStoredPackage('com.misc.audio', {
    description: 'Spatial audio mixer',
    displayName: 'Audio Mixer',
    keywords: ['audio', 'ui'],
    versions: ['0.9.0'],
  }),
  buildStoredPackage('com.vendor.input-system-extras', { description: 'More devices' }),
  buildStoredPackage('com.misc.guide', { description: 'A build guide for user interfaces' }),
  // an older version deprecated only: the package is not deprecated
  buildStoredPackage('com.misc.partly', {
    description: 'Partly deprecated input tools',
    versions: [{ version: '1.0.0', deprecated: 'broken' }, '1.1.0'],
  }),
];

beforeAll(async () => {
  registry = await startRegistry();
  for (const pkg of corpus) await seedPackage(registry.storage, pkg);
});
afterAll(async () => {
  await registry.close();
});

describe('relevance order', () => {
  it('orders exact name, name part, name, keywords, description/author, then deprecated', async () => {
    expect(await names('input')).toEqual([
      'com.other.inputfield',
      'com.vendor.input-system',
      'com.vendor.input-system-extras',
      'com.other.textinput',
      'com.misc.controls',
      // tier 4, by score.final
      ...(await tier4Order()),
      'com.old.input-legacy',
    ]);
  });

  it('puts the exact name first, then names it prefixes', async () => {
    expect(await names('com.vendor.input-system')).toEqual(['com.vendor.input-system', 'com.vendor.input-system-extras']);
    expect((await names('com.misc.controls'))[0]).toBe('com.misc.controls');
  });

  it('ranks an exact displayName like an exact name', async () => {
    expect((await names('audio mixer'))[0]).toBe('com.misc.audio');
  });

  it('breaks ties inside a tier by score.final, highest first', async () => {
    const res = await request(`${registry.url}/-/v1/search?text=vendor`);
    const finals = res.body.objects.map((o: { score: { final: number } }) => o.score.final);
    expect(finals).toEqual([...finals].sort((a: number, b: number) => b - a));
  });

  it('gives searchScore values in [0, 1] that fall along the result order', async () => {
    const res = await request(`${registry.url}/-/v1/search?text=input`);
    const scores = res.body.objects.map((o: { searchScore: number }) => o.searchScore);
    for (const s of scores) expect(s).toBeGreaterThanOrEqual(0);
    for (const s of scores) expect(s).toBeLessThanOrEqual(1);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
  });
});

/** The tier-4 packages for "input" sorted as the rules say: score.final, then name. */
async function tier4Order(): Promise<string[]> {
  const res = await request(`${registry.url}/-/v1/search?text=input&size=250`);
  const tier4 = ['com.misc.gamepad', 'com.misc.author-match', 'com.misc.partly'];
  return res.body.objects
    .filter((o: { package: { name: string } }) => tier4.includes(o.package.name))
    .sort(
      (a: { score: { final: number }; package: { name: string } }, b: { score: { final: number }; package: { name: string } }) =>
        b.score.final - a.score.final || (a.package.name < b.package.name ? -1 : 1),
    )
    .map((o: { package: { name: string } }) => o.package.name);
}

describe('partial matches per field', () => {
  it('finds a fragment inside a name part', async () => {
    expect(await names('inpu')).toContain('com.vendor.input-system');
    expect(await names('tinpu')).toEqual(['com.other.textinput']);
  });

  it('finds every package of a dotted name part', async () => {
    expect((await names('vendor')).sort()).toEqual(['com.vendor.input-system', 'com.vendor.input-system-extras']);
  });

  it('finds fragments of descriptions, keywords, displayName, author name and e-mail', async () => {
    expect(await names('gamepa')).toEqual(expect.arrayContaining(['com.misc.gamepad', 'com.misc.controls']));
    expect(await names('ontroll')).toEqual(['com.misc.controls']);
    expect(await names('mixe')).toEqual(['com.misc.audio']);
    expect(await names('labs')).toEqual(['com.misc.author-match']);
    expect(await names('inputlabs.io')).toEqual(['com.misc.author-match']);
  });

  it('is case-insensitive', async () => {
    expect(await names('INPUT')).toEqual(await names('input'));
    expect(await names('GaMePaD')).toEqual(await names('gamepad'));
  });

  it('needs every term to match', async () => {
    expect(await names('input gamepads')).toEqual(['com.misc.gamepad']);
    expect(await names('input nothing-like-this')).toEqual([]);
  });

  it('matches one- and two-letter terms at the start of words only', async () => {
    // "ui" is a keyword of com.misc.audio; inside "build" and "guide" it does not count.
    expect(await names('ui')).toEqual(['com.misc.audio']);
    expect(await names('us')).toEqual(['com.misc.guide']);
  });

  it('answers no match with an empty page, not an error', async () => {
    const res = await request(`${registry.url}/-/v1/search?text=zzzzzz`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ objects: [], total: 0 });
  });
});

describe('qualifiers', () => {
  it('keywords: filters on exact keywords, commas for any of several, a minus to exclude', async () => {
    expect(await names('keywords:input')).toEqual(['com.misc.controls']);
    expect((await names('keywords:input,audio')).sort()).toEqual(['com.misc.audio', 'com.misc.controls']);
    expect(await names('keywords:inp')).toEqual([]);
    expect(await names('input keywords:-input')).not.toContain('com.misc.controls');
    expect(await names('KEYWORDS:Input')).toEqual(['com.misc.controls']);
  });

  it('author: and maintainer:', async () => {
    expect(await names('author:labs')).toEqual(['com.misc.author-match']);
    expect(await names('author:dev@inputlabs.io')).toEqual(['com.misc.author-match']);
    expect(await names('maintainer:bob')).toEqual(['com.misc.author-match']);
    expect(await names('maintainer:bob@example.com')).toEqual(['com.misc.author-match']);
    expect(await names('maintainer:bo')).toEqual([]);
    expect((await names('maintainer:alice')).length).toBe(corpus.length - 1);
  });

  it('is:deprecated and not:deprecated', async () => {
    expect(await names('is:deprecated')).toEqual(['com.old.input-legacy']);
    expect(await names('input is:deprecated')).toEqual(['com.old.input-legacy']);
    expect(await names('input not:deprecated')).not.toContain('com.old.input-legacy');
    expect(await names('input not:deprecated')).toContain('com.misc.partly');
  });

  it('is:unstable and not:unstable (below 1.0.0)', async () => {
    expect(await names('is:unstable')).toEqual(['com.misc.audio']);
    expect(await names('audio not:unstable')).toEqual([]);
  });

  it('combines text and qualifiers', async () => {
    expect(await names('input author:labs')).toEqual(['com.misc.author-match']);
    expect(await names('gamepad keywords:controller')).toEqual(['com.misc.controls']);
  });
});

describe('deprecated and unpublished packages', () => {
  it('flags a deprecated package with its message and ranks it last', async () => {
    const res = await request(`${registry.url}/-/v1/search?text=input&size=250`);
    const last = res.body.objects[res.body.objects.length - 1];
    expect(last.package.name).toBe('com.old.input-legacy');
    expect(last.flags).toEqual({ insecure: 0, deprecated: 'Use com.vendor.input-system' });
    expect(last.score.detail.maintenance).toBe(0);
  });

  it('never shows an unpublished package, and drops one when it is unpublished', async () => {
    await seedPackage(registry.storage, buildStoredPackage('com.gone.tombstone', { description: 'input', unpublished: true }));
    expect(await names('tombstone')).toEqual([]);

    await seedPackage(registry.storage, buildStoredPackage('com.gone.later', { description: 'vanishing input' }));
    expect(await names('vanishing')).toEqual(['com.gone.later']);
    await registry.storage.packages.package('', 'com.gone.later').update((current) => ({
      next: { ...current!, unpublished: true },
      result: undefined,
    }));
    await registry.storage.bus.publish('', 'com.gone.later'); // as the registry's unpublish does
    expect(await names('vanishing')).toEqual([]);
    const all = await request(`${registry.url}/-/all`);
    expect(Object.keys(all.body)).not.toContain('com.gone.later');
    expect(Object.keys(all.body)).not.toContain('com.gone.tombstone');
  });

  it('shows a new version as soon as it is written', async () => {
    await seedPackage(registry.storage, buildStoredPackage('com.fresh.thing', { description: 'fresh', versions: ['1.0.0'] }));
    expect((await request(`${registry.url}/-/v1/search?text=com.fresh.thing`)).body.objects[0].package.version).toBe('1.0.0');
    await seedPackage(
      registry.storage,
      buildStoredPackage('com.fresh.thing', { description: 'fresh and new', versions: ['1.0.0', '1.1.0'] }),
    );
    const res = await request(`${registry.url}/-/v1/search?text=com.fresh.thing`);
    expect(res.body.objects[0].package).toMatchObject({ version: '1.1.0', description: 'fresh and new' });
  });
});
