import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runRegistryCli } from '@pkg/testkit';
import { makeHome, runPkg } from '../support/spawn.js';

const root = new URL('../../../../', import.meta.url);
const versionOf = (file: string) => (JSON.parse(readFileSync(new URL(file, root), 'utf8')) as { version: string }).version;

// The short form of the release verification (test/release/release.test.ts installs the
// tarballs and runs the single executable; npm run release runs it).
describe('one version for both programs', () => {
  const version = versionOf('package.json');

  it('is the root package.json version, and every workspace carries it', () => {
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const workspace of ['protocol', 'server', 'cli', 'testkit']) {
      expect(versionOf(`packages/${workspace}/package.json`), workspace).toBe(version);
    }
  });

  it('is what pkg --version and pkg-registry --version print', async () => {
    const pkg = await runPkg(['--version'], { home: await makeHome() });
    expect(pkg).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const server = await runRegistryCli(['--version']);
    expect(server).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});
