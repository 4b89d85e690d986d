import { describe, expect, it } from 'vitest';
import { dependencyFieldsProblem, isSemverRange } from '@pkg/protocol';

describe('dependencyFieldsProblem', () => {
  it('accepts reverse-DNS names with semver versions and ranges in every installed field', () => {
    expect(
      dependencyFieldsProblem({
        dependencies: { 'com.acme.core': '1.2.3', 'com.unity.ugui': '^1.0.0' },
        peerDependencies: { 'com.acme.peer': '>=1 <3 || 4.x' },
        optionalDependencies: { 'com.acme.opt': '*' },
        devDependencies: { typescript: '~5.9.0', '@types/node': '^22', 'com.acme.test-kit': '' },
        bundleDependencies: ['com.acme.core'],
      }),
    ).toBeUndefined();
    expect(dependencyFieldsProblem({ bundledDependencies: true })).toBeUndefined();
    expect(dependencyFieldsProblem({})).toBeUndefined();
  });

  it.each([
    [{ dependencies: { 'com.evil."><script>': '1.0.0' } }, `dependencies: 'com.evil.\\"><script>' is not a valid package name`],
    [{ dependencies: { lodash: '^4.0.0' } }, "dependencies: 'lodash' is not a valid package name"],
    [{ peerDependencies: { '@scope/pkg': '1.0.0' } }, "peerDependencies: '@scope/pkg' is not a valid package name: scoped"],
    [{ optionalDependencies: { 'Com.Acme.X': '1.0.0' } }, 'must be lowercase'],
    [{ devDependencies: { 'bad name': '1.0.0' } }, "devDependencies: 'bad name' is not a valid package name"],
    [{ devDependencies: { '<script>': '1.0.0' } }, 'devDependencies'],
    [{ bundleDependencies: ['lodash'] }, "bundleDependencies: 'lodash' is not a valid package name"],
    [{ bundleDependencies: 'com.acme.core' }, "'bundleDependencies' must be a list"],
    [{ bundledDependencies: [42] }, "'bundledDependencies' must list package names"],
    [{ dependencies: { 'com.acme.core': 'latest' } }, "dependencies: 'latest' (for 'com.acme.core') is not a valid semver"],
    [{ dependencies: { 'com.acme.core': 'file:../core' } }, 'is not a valid semver'],
    [{ peerDependencies: { 'com.acme.core': 'git+https://example.com/x.git' } }, 'is not a valid semver'],
    [{ devDependencies: { typescript: 'npm:typescript@5' } }, 'is not a valid semver'],
    [{ dependencies: { 'com.acme.core': 1 } }, "the version of 'com.acme.core' must be a string"],
    [{ dependencies: ['com.acme.core'] }, "'dependencies' must map package names to version ranges"],
    [{ devDependencies: null }, "'devDependencies' must map"],
  ])('refuses %j with the reason', (manifest, reason) => {
    expect(dependencyFieldsProblem(manifest)).toContain(reason);
  });

  it('keeps a hostile value printable and short in the reason', () => {
    const problem = dependencyFieldsProblem({ dependencies: { 'com.acme.core': `1.0.0\n${'x'.repeat(500)}` } })!;
    expect(problem).not.toContain('\n');
    expect(problem.length).toBeLessThan(200);
  });
});

describe('isSemverRange', () => {
  it.each(['1.0.0', '^1.2', '~1.2.3', '>=1.0.0 <2', '1.x', '*', '', '1.0.0 - 2.0.0'])('accepts %j', (range) => {
    expect(isSemverRange(range)).toBe(true);
  });
  it.each(['latest', 'next', 'file:x', 'workspace:*', 'https://a/b.tgz', '>=1 <script>', '1'.repeat(300)])(
    'refuses %j',
    (range) => {
      expect(isSemverRange(range)).toBe(false);
    },
  );
});
