import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, testDeps } from '../support/deps.js';
import { searchObject, startFixtureRegistry, type FixtureRegistry } from '../support/fixture-registry.js';

const SEP = '─'.repeat(40);
let fixture: FixtureRegistry;

const objects = [
  searchObject('com.vendor.input', '1.2.0'),
  searchObject('com.vendor.input-extras', '0.3.1', { keywords: [], description: 'Extras for input' }),
];

beforeAll(async () => {
  fixture = await startFixtureRegistry((_req, url) => {
    if (url.pathname === '/-/v1/search') {
      const text = url.searchParams.get('text');
      if (text === 'input') return { body: { objects, total: 7, time: '2024-06-03T00:00:00.000Z' } };
      if (text === 'one') return { body: { objects: objects.slice(0, 1), total: 1, time: 'x' } };
      return { body: { objects: [], total: 0, time: 'x' } };
    }
    if (url.pathname === '/com.vendor.input') {
      return {
        body: {
          name: 'com.vendor.input',
          'dist-tags': { latest: '1.2.0' },
          repository: { type: 'git', url: 'git+https://github.com/vendor/input.git' },
          versions: {
            '1.2.0': {
              name: 'com.vendor.input',
              version: '1.2.0',
              license: 'MIT',
              dependencies: { 'com.vendor.core': '2.0.0', 'com.unity.modules.ui': '1.0.0' },
              dist: { tarball: 't', integrity: 'i', shasum: 's' },
            },
          },
        },
      };
    }
    if (url.pathname === '/com.vendor.input-extras') {
      return {
        body: {
          name: 'com.vendor.input-extras',
          'dist-tags': { latest: '0.3.1' },
          versions: {
            '0.3.1': { name: 'com.vendor.input-extras', version: '0.3.1', dist: { tarball: 't', integrity: 'i', shasum: 's' } },
          },
        },
      };
    }
    return undefined;
  });
});
afterAll(async () => {
  await fixture?.close();
});

describe('pkg search', () => {
  it('prints the default listing with "... and <k> more packages"', async () => {
    const deps = await testDeps();
    const { code, stdout, stderr } = await run(deps, ['search', 'input', '--limit', '2', '--registry', fixture.url]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'Search Results',
        SEP,
        'Search term: input',
        'Found 7 packages:',
        '',
        'com.vendor.input (1.2.0)',
        '  com.vendor.input description',
        '  Author: Jane Doe <jane@example.com>',
        '  Keywords: unity, input',
        '',
        'com.vendor.input-extras (0.3.1)',
        '  Extras for input',
        '  Author: Jane Doe <jane@example.com>',
        '  Keywords: (none)',
        '',
        '... and 5 more packages',
        '',
      ].join('\n'),
    );
    expect(fixture.requests.at(-1)!.url).toBe('/-/v1/search?text=input&size=2&from=0');
  });

  it('asks for 10 results by default and omits the "more" line when all are shown', async () => {
    const deps = await testDeps();
    const { code, stdout } = await run(deps, ['search', 'one', '--registry', fixture.url]);
    expect(code).toBe(0);
    expect(fixture.requests.at(-1)!.url).toBe('/-/v1/search?text=one&size=10&from=0');
    expect(stdout).toContain('Found 1 package:\n');
    expect(stdout).not.toContain('more package');
  });

  it('prints --detail with license, repository, downloads, last update, engines and dependencies', async () => {
    const deps = await testDeps();
    const { code, stdout } = await run(deps, ['search', 'input', '--detail', '--limit', '2', '--registry', fixture.url]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      [
        'com.vendor.input (1.2.0)',
        '  Description: com.vendor.input description',
        '  Author: Jane Doe <jane@example.com>',
        '  License: MIT',
        '  Keywords: unity, input',
        '  Repository: https://github.com/vendor/input.git',
        '  Downloads: 345 in the last 30 days',
        '  Last Updated: 2024-06-02',
        '  Engines: Unity (any)',
        '  Dependencies:',
        '    com.vendor.core@2.0.0',
        '    com.unity.modules.ui@1.0.0',
        '',
        'com.vendor.input-extras (0.3.1)',
        '  Description: Extras for input',
        '  Author: Jane Doe <jane@example.com>',
        '  License: (none)',
        '  Keywords: (none)',
        '  Repository: (none)',
        '  Downloads: 345 in the last 30 days',
        '  Last Updated: 2024-06-02',
        '  Engines: Unity (any)',
        '  Dependencies:',
        '    (none)',
        '',
        '... and 5 more packages',
      ].join('\n'),
    );
  });

  it('prints the client search result shape with --json', async () => {
    const deps = await testDeps();
    const { code, stdout, stderr } = await run(deps, ['search', 'input', '--limit', '2', '--json', '--registry', fixture.url]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({
      success: true,
      query: 'input',
      total: 7,
      results: [
        {
          name: 'com.vendor.input',
          version: '1.2.0',
          description: 'com.vendor.input description',
          author: 'Jane Doe <jane@example.com>',
          keywords: ['unity', 'input'],
          downloads: 345,
          lastUpdated: '2024-06-02T11:00:00.000Z',
        },
        {
          name: 'com.vendor.input-extras',
          version: '0.3.1',
          description: 'Extras for input',
          author: 'Jane Doe <jane@example.com>',
          keywords: [],
          downloads: 345,
          lastUpdated: '2024-06-02T11:00:00.000Z',
        },
      ],
    });
  });

  it('rejects an empty term with exit 2, in text and JSON, without a request', async () => {
    const deps = await testDeps();
    const before = fixture.requests.length;
    for (const argv of [['search'], ['search', '  ']]) {
      const { code, stderr } = await run(deps, [...argv, '--registry', fixture.url]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/^Error: Search term cannot be empty\nHint: /);
    }
    const json = await run(deps, ['search', '', '--json', '--registry', fixture.url]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, error: 'Search term cannot be empty' });
    expect(fixture.requests.length).toBe(before);
  });

  it('reports no results as "No packages found matching \'<term>\'", exit 1', async () => {
    const deps = await testDeps();
    const { code, stdout, stderr } = await run(deps, ['search', 'zzz', '--registry', fixture.url]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^Error: No packages found matching 'zzz'\n/);
  });

  it('still searches, anonymously and with a warning, when the token store is damaged', async () => {
    const deps = await testDeps();
    const dir = path.join(deps.env.PKG_DATA_DIR!, 'credentials');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'tokens.json'), '{damaged');
    const { code, stdout, stderr } = await run(deps, ['search', 'one', '--registry', fixture.url]);
    expect(code).toBe(0);
    expect(stdout).toContain('Found 1 package:');
    expect(stderr).toMatch(
      /^Warning: Failed to read the stored authentication token: .*damaged.*; continuing without a token\.\n$/,
    );
    expect(fixture.requests.at(-1)!.authorization).toBeUndefined();
  });

  it('searches several words as one phrase', async () => {
    const deps = await testDeps();
    await run(deps, ['search', 'input', 'system', '--registry', fixture.url]);
    expect(fixture.requests.at(-1)!.url).toBe('/-/v1/search?text=input+system&size=10&from=0');
  });

  it('rejects a bad --limit with exit 2', async () => {
    const deps = await testDeps();
    for (const limit of ['0', 'ten', '251']) {
      const { code, stderr } = await run(deps, ['search', 'input', '--limit', limit, '--registry', fixture.url]);
      expect(code).toBe(2);
      expect(stderr).toContain(`Error: Invalid --limit '${limit}'`);
    }
  });
});
