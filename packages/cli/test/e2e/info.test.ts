import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUser, publishVersion, request, startRegistry, type TestRegistry } from '@pkg/testkit';
import { makeHome, runPkg } from '../support/spawn.js';

let registry: TestRegistry;

beforeAll(async () => {
  registry = await startRegistry();
  const token = await loginUser(registry.url, 'publisher');
  const manifest = (extra: Record<string, unknown> = {}) => ({
    description: 'Input system for games',
    license: 'MIT',
    author: 'Jane Doe <jane@example.com>',
    unity: '2021.3',
    keywords: ['input'],
    ...extra,
  });
  for (const [version, extra, tag] of [
    ['1.0.0', {}, 'latest'],
    ['1.1.0', { unityRelease: '0f1', dependencies: { 'com.vendor.core': '2.0.0' } }, 'latest'],
    ['2.0.0-beta.1', {}, 'beta'],
  ] as const) {
    const res = await publishVersion(registry.url, token, 'com.vendor.input', version, { manifest: manifest(extra), tag });
    expect(res.status, res.text).toBe(201);
  }
});
afterAll(async () => {
  await registry?.close();
});

describe('pkg info (built binary, real registry)', () => {
  it('shows the latest version, its tags, versions, engine, dependencies, tarball and integrity', async () => {
    const home = await makeHome();
    const doc = (await request(`${registry.url}/com.vendor.input`)).body;
    const result = await runPkg(['info', 'com.vendor.input', '--registry', registry.url], { home });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('com.vendor.input@1.1.0');
    expect(lines).toContain('Input system for games');
    expect(lines).toContain('Latest: 1.1.0');
    expect(lines).toContain('Dist-tags: latest: 1.1.0, beta: 2.0.0-beta.1');
    expect(lines).toContain('Versions: 1.0.0, 1.1.0, 2.0.0-beta.1');
    expect(lines).toContain('License: MIT');
    expect(lines).toContain('Author: Jane Doe <jane@example.com>');
    expect(lines).toContain('Minimum Unity version: 2021.3.0f1');
    expect(result.stdout).toContain('Dependencies:\n  com.vendor.core@2.0.0\n');
    expect(lines).toContain(`Tarball: ${doc.versions['1.1.0'].dist.tarball}`);
    expect(lines).toContain(`Integrity: ${doc.versions['1.1.0'].dist.integrity}`);
  });

  it('resolves a dist-tag and prints JSON', async () => {
    const home = await makeHome();
    const result = await runPkg(['info', 'com.vendor.input@beta', '--json', '--registry', registry.url], { home });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      success: true,
      name: 'com.vendor.input',
      version: '2.0.0-beta.1',
      distTags: { latest: '1.1.0', beta: '2.0.0-beta.1' },
      versions: ['1.0.0', '1.1.0', '2.0.0-beta.1'],
      unity: '2021.3',
    });
  });

  it('reports a package the registry does not hold, exit 1', async () => {
    const home = await makeHome();
    const result = await runPkg(['info', 'com.vendor.missing', '--registry', registry.url], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "Error: Package 'com.vendor.missing' not found\nHint: Check the name, or search with `pkg search <term>`.\n",
    );
  });
});
