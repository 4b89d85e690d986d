import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, testDeps } from '../support/deps.js';
import { startFixtureRegistry, type FixtureRegistry } from '../support/fixture-registry.js';

const SEP = '─'.repeat(40);
let fixture: FixtureRegistry;

const version = (v: string, extra: Record<string, unknown> = {}) => ({
  name: 'com.vendor.input',
  version: v,
  description: 'Input system',
  author: { name: 'Jane Doe', email: 'jane@example.com' },
  license: 'MIT',
  unity: '2021.3',
  dist: { tarball: `https://cdn.example/com.vendor.input/-/com.vendor.input-${v}.tgz`, integrity: `sha512-${v}`, shasum: 'x' },
  ...extra,
});

beforeAll(async () => {
  fixture = await startFixtureRegistry((_req, url) => {
    if (url.pathname !== '/com.vendor.input') return undefined;
    return {
      body: {
        _id: 'com.vendor.input',
        name: 'com.vendor.input',
        description: 'Input system',
        'dist-tags': { latest: '1.10.0', beta: '2.0.0-beta.1' },
        versions: {
          '1.2.0': version('1.2.0', { godot: '4.2', unreal: '5.3', unrealMax: '5.3' }),
          '1.3.0': version('1.3.0', { unity: undefined, godot: '4.3' }),
          '1.10.0': version('1.10.0', { unityRelease: '0f1', dependencies: { 'com.vendor.core': '2.0.0' }, keywords: ['input'] }),
          '2.0.0-beta.1': version('2.0.0-beta.1', { deprecated: 'use 2.0.0' }),
        },
        time: { '1.10.0': '2024-06-01T00:00:00.000Z' },
      },
    };
  });
});
afterAll(async () => {
  await fixture?.close();
});

describe('pkg info', () => {
  it('shows the latest version with tags, versions, engine, dependencies, tarball and integrity', async () => {
    const deps = await testDeps();
    const { code, stdout, stderr } = await run(deps, ['info', 'com.vendor.input', '--registry', fixture.url]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'com.vendor.input@1.10.0',
        SEP,
        'Input system',
        '',
        'Latest: 1.10.0',
        'Dist-tags: latest: 1.10.0, beta: 2.0.0-beta.1',
        'Versions: 1.2.0, 1.3.0, 1.10.0, 2.0.0-beta.1',
        'License: MIT',
        'Author: Jane Doe <jane@example.com>',
        'Minimum Unity version: 2021.3.0f1',
        'Keywords: input',
        'Published: 2024-06-01T00:00:00.000Z',
        'Dependencies:',
        '  com.vendor.core@2.0.0',
        'Tarball: https://cdn.example/com.vendor.input/-/com.vendor.input-1.10.0.tgz',
        'Integrity: sha512-1.10.0',
        'Unity signature: unsigned (Unity 6.3 and later show it as unsigned; 6.7 blocks unsigned packages by default)',
        '',
      ].join('\n'),
    );
  });

  it('resolves @<version> and @<dist-tag>, and prints JSON', async () => {
    const deps = await testDeps();
    const exact = await run(deps, ['info', 'com.vendor.input@1.2.0', '--json', '--registry', fixture.url]);
    expect(exact.code).toBe(0);
    expect(JSON.parse(exact.stdout)).toMatchObject({
      success: true,
      name: 'com.vendor.input',
      version: '1.2.0',
      unity: '2021.3',
      unityRelease: null,
      distTags: { latest: '1.10.0', beta: '2.0.0-beta.1' },
      versions: ['1.2.0', '1.3.0', '1.10.0', '2.0.0-beta.1'],
      dependencies: {},
      integrity: 'sha512-1.2.0',
    });
    const tag = await run(deps, ['info', 'com.vendor.input@beta', '--registry', fixture.url]);
    expect(tag.stdout).toContain('com.vendor.input@2.0.0-beta.1\n');
    expect(tag.stdout).toContain('Deprecated: use 2.0.0\n');
  });

  it('shows the Godot and Unreal versions a version supports', async () => {
    const deps = await testDeps();
    const text = await run(deps, ['info', 'com.vendor.input@1.2.0', '--registry', fixture.url]);
    expect(text.stdout).toContain('Minimum Unity version: 2021.3\nGodot: 4.2 or newer\nUnreal Engine: 5.3 only\n');
    const json = JSON.parse((await run(deps, ['info', 'com.vendor.input@1.2.0', '--json', '--registry', fixture.url])).stdout);
    expect(json).toMatchObject({ godot: '4.2', unreal: '5.3', unrealMax: '5.3' });
    expect(json).not.toHaveProperty('godotMax');
    const latest = JSON.parse((await run(deps, ['info', 'com.vendor.input', '--json', '--registry', fixture.url])).stdout);
    expect(latest).not.toHaveProperty('godot');
    const godotOnly = await run(deps, ['info', 'com.vendor.input@1.3.0', '--registry', fixture.url]);
    expect(godotOnly.stdout).toContain('Minimum Unity version: (not a Unity package)\nGodot: 4.3 or newer\n');
  });

  it('resolves @<range> as npm view does: latest when it satisfies the range, else the highest that does', async () => {
    const deps = await testDeps();
    const resolved = async (spec: string) =>
      JSON.parse((await run(deps, ['info', spec, '--json', '--registry', fixture.url])).stdout).version as string;
    expect(await resolved('com.vendor.input@^1.2')).toBe('1.10.0');
    expect(await resolved('com.vendor.input@1.x')).toBe('1.10.0');
    expect(await resolved('com.vendor.input@~1.2.0')).toBe('1.2.0');
    expect(await resolved('com.vendor.input@>=2.0.0-beta.0')).toBe('2.0.0-beta.1');
    const none = await run(deps, ['info', 'com.vendor.input@^3', '--registry', fixture.url]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("Error: Version '^3' of com.vendor.input not found");
  });

  it('reports unknown packages and versions (exit 1) and bad names (exit 2)', async () => {
    const deps = await testDeps();
    const missing = await run(deps, ['info', 'com.vendor.nothing', '--registry', fixture.url]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: Package 'com.vendor.nothing' not found\n/);
    const noVersion = await run(deps, ['info', 'com.vendor.input@9.9.9', '--registry', fixture.url]);
    expect(noVersion.code).toBe(1);
    expect(noVersion.stderr).toMatch(/^Error: Version '9.9.9' of com.vendor.input not found\n/);
    const badName = await run(deps, ['info', 'Not-Reverse-DNS', '--json', '--registry', fixture.url]);
    expect(badName.code).toBe(2);
    expect(JSON.parse(badName.stdout)).toMatchObject({ success: false, code: 'INVALID_PACKAGE_NAME' });
  });
});
