import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchObject, startFixtureRegistry, type FixtureRegistry } from '../support/fixture-registry.js';
import { makeHome, runPkg } from '../support/spawn.js';

// The built binary against a fixture registry with fixed search answers; the output formats
// are checked line by line in test/commands/search.test.ts.
let fixture: FixtureRegistry;

beforeAll(async () => {
  fixture = await startFixtureRegistry((_req, url) => {
    if (url.pathname !== '/-/v1/search') return undefined;
    const size = Number(url.searchParams.get('size'));
    const all = Array.from({ length: 12 }, (_, i) => searchObject(`com.fixture.pkg${i}`, `1.0.${i}`));
    const text = url.searchParams.get('text');
    const matches = text === 'pkg' ? all : [];
    return { body: { objects: matches.slice(0, size), total: matches.length, time: '2024-06-03T00:00:00.000Z' } };
  });
});
afterAll(async () => {
  await fixture?.close();
});

describe('pkg search (built binary)', () => {
  it('shows 10 results by default and how many more exist', async () => {
    const home = await makeHome();
    const result = await runPkg(['search', 'pkg', '--registry', fixture.url], { home });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Search term: pkg\nFound 12 packages:\n');
    expect(result.stdout.match(/^com\.fixture\.pkg\d+ \(1\.0\.\d+\)$/gm)).toHaveLength(10);
    expect(result.stdout.endsWith('\n... and 2 more packages\n')).toBe(true);
  });

  it('prints JSON only with --json, for results and for errors', async () => {
    const home = await makeHome();
    const ok = await runPkg(['search', 'pkg', '--limit', '3', '--json', '--registry', fixture.url], { home });
    expect(ok.code).toBe(0);
    const body = JSON.parse(ok.stdout);
    expect(body).toMatchObject({ success: true, query: 'pkg', total: 12 });
    expect(body.results.map((r: { name: string }) => r.name)).toEqual([
      'com.fixture.pkg0',
      'com.fixture.pkg1',
      'com.fixture.pkg2',
    ]);

    const none = await runPkg(['search', 'nothing', '--json', '--registry', fixture.url], { home });
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout)).toMatchObject({ success: false, error: "No packages found matching 'nothing'" });
    const empty = await runPkg(['search', '--json', '--registry', fixture.url], { home });
    expect(empty.code).toBe(2);
    expect(JSON.parse(empty.stdout)).toMatchObject({ success: false, error: 'Search term cannot be empty' });
  });
});
