import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * The Node.js versions the root package.json's `engines` accepts are ones every package of
 * package-lock.json accepts too, so `npm ci` (and an install of a release tarball, whose
 * npm-shrinkwrap.json is this lockfile's tree) never warns EBADENGINE on a version we claim; and
 * the README states the same range.
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const readJson = (file: string) => JSON.parse(readFileSync(`${root}${file}`, 'utf8')) as unknown;
const { engines } = readJson('package.json') as { engines: { node: string } };
const lock = readJson('package-lock.json') as { packages: Record<string, { version?: string; engines?: { node?: string } }> };

/** The oldest version of each line the range accepts (`^20.19.0 || >=24` → 20.19.0, 24.0.0). */
function floors(range: string): string[] {
  return new semver.Range(range).set.map((comparators) => semver.minVersion(comparators.map((c) => c.value).join(' '))!.version);
}

describe('supported Node.js', () => {
  it('every dependency accepts the oldest version of each line engines names', () => {
    const lines = floors(engines.node);
    expect(lines.length).toBeGreaterThan(1);
    const refusals = [];
    for (const version of lines) {
      for (const [location, entry] of Object.entries(lock.packages)) {
        const wanted = entry.engines?.node;
        if (wanted && !semver.satisfies(version, wanted))
          refusals.push(`Node.js ${version}: ${location}@${entry.version} wants ${wanted}`);
      }
    }
    expect(refusals).toEqual([]);
  });

  it('the README states the range of engines', () => {
    expect(readFileSync(`${root}README.md`, 'utf8')).toContain(`\`${engines.node}\``);
  });
});
