import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg } from '../support/spawn.js';

const SEP = '─'.repeat(40);
let registry: TestRegistry;

beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'searcher');
  const publish = async (name: string, version: string, manifest: Record<string, unknown>) => {
    const res = await publishVersion(registry.url, token, name, version, { manifest });
    expect(res.status, res.text).toBe(201);
  };
  await publish('com.acme.input', '1.2.0', {
    description: 'Input system for games',
    author: 'Jane Doe <jane@example.com>',
    keywords: ['input', 'controller'],
    license: 'MIT',
    repository: { type: 'git', url: 'git+https://github.com/acme/input.git' },
    dependencies: { 'com.acme.core': '2.0.0' },
  });
  await publish('com.acme.core', '2.0.0', {
    description: 'Core helpers',
    author: 'Acme',
    keywords: ['core'],
    license: 'Apache-2.0',
  });
  for (let i = 0; i < 4; i++)
    await publish(`com.acme.widget${i}`, '0.1.0', { description: `Widget number ${i}`, keywords: ['widget'] });
  // One download of the input package, which search reports.
  const doc = (await request(`${registry.url}/com.acme.input`)).body;
  expect((await fetch(doc.versions['1.2.0'].dist.tarball)).status).toBe(200);
  // Download counts are written in batches; write this one now rather than wait for the interval.
  await registry.services.downloads.flush();
});
afterAll(async () => {
  await registry?.close();
});

describe('pkg search (built binary, real registry)', () => {
  it('prints the default format', async () => {
    const home = await makeHome();
    const result = await runPkg(['search', 'input', '--registry', registry.url], { home });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        'Search Results',
        SEP,
        'Search term: input',
        'Found 1 package:',
        '',
        'com.acme.input (1.2.0)',
        '  Input system for games',
        '  Author: Jane Doe <jane@example.com>',
        '  Keywords: input, controller',
        '',
      ].join('\n'),
    );
  });

  it('says how many more packages exist than --limit shows', async () => {
    const home = await makeHome();
    const result = await runPkg(['search', 'widget', '--limit', '3', '--registry', registry.url], { home });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Found 4 packages:\n');
    expect(result.stdout.match(/^com\.acme\.widget\d \(0\.1\.0\)$/gm)).toHaveLength(3);
    expect(result.stdout.endsWith('\n... and 1 more package\n')).toBe(true);
  });

  it('prints --detail with license, repository, downloads, last update, engines and dependencies', async () => {
    const home = await makeHome();
    const result = await runPkg(['search', 'input', '--detail', '--registry', registry.url], { home });
    expect(result.code).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(result.stdout).toContain(
      [
        'com.acme.input (1.2.0)',
        '  Description: Input system for games',
        '  Author: Jane Doe <jane@example.com>',
        '  License: MIT',
        '  Keywords: input, controller',
        '  Repository: https://github.com/acme/input.git',
        '  Downloads: 1 in the last 30 days',
        `  Last Updated: ${today}`,
        '  Engines: Unity (any)',
        '  Dependencies:',
        '    com.acme.core@2.0.0',
      ].join('\n'),
    );
  });

  it('prints the client search result with --json', async () => {
    const home = await makeHome();
    const result = await runPkg(['search', 'input', '--json', '--registry', registry.url], { home });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body).toMatchObject({ success: true, query: 'input', total: 1 });
    expect(body.results).toEqual([
      {
        name: 'com.acme.input',
        version: '1.2.0',
        description: 'Input system for games',
        author: 'Jane Doe <jane@example.com>',
        keywords: ['input', 'controller'],
        downloads: 1,
        lastUpdated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    ]);
  });

  it('finds partial matches in names, descriptions, keywords and authors', async () => {
    const home = await makeHome();
    for (const [term, name] of [
      ['inpu', 'com.acme.input'],
      ['helpers', 'com.acme.core'],
      ['controller', 'com.acme.input'],
      ['jane', 'com.acme.input'],
    ] as const) {
      const result = await runPkg(['search', term, '--json', '--registry', registry.url], { home });
      expect(result.code, term).toBe(0);
      expect(JSON.parse(result.stdout).results.map((r: { name: string }) => r.name)).toContain(name);
    }
  });

  it('reports an empty term (exit 2) and no results (exit 1) with the spec messages', async () => {
    const home = await makeHome();
    const empty = await runPkg(['search', '', '--registry', registry.url], { home });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^Error: Search term cannot be empty\n/);
    const none = await runPkg(['search', 'nothing-matches-this', '--registry', registry.url], { home });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^Error: No packages found matching 'nothing-matches-this'\n/);
  });
});
