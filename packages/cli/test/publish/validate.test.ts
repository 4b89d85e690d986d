import { describe, expect, it } from 'vitest';
import { manifestProblems, metaProblems } from '../../src/publish/validate.js';

const good = { name: 'com.vendor.tool', version: '1.2.0', displayName: 'Tool', unity: '2022.3', unityRelease: '10f1' };

describe('manifestProblems', () => {
  it('accepts what Unity writes', () => {
    expect(manifestProblems(good)).toEqual([]);
    expect(manifestProblems({ ...good, unity: undefined, unityRelease: undefined })).toEqual([]);
    expect(manifestProblems({ ...good, unityRelease: '' })).toEqual([]);
    expect(manifestProblems({ ...good, unityRelease: '0b4' })).toEqual([]);
  });

  it.each([
    [{ name: '@scope/tool' }, /"name" "@scope\/tool" is not valid: scoped names are not supported/],
    [{ name: 'tool' }, /"name" "tool" is not valid: .*reverse-DNS/],
    [{ version: 'v1.2' }, /"version" "v1.2" is not a semver version/],
    [{ unity: '2022' }, /"unity" "2022" is not <major>.<minor>/],
    [{ unity: '2022.3.10f1' }, /"unity" "2022.3.10f1" is not <major>.<minor>/],
    [{ unityRelease: 'f1' }, /"unityRelease" "f1" is not a release as Unity writes it/],
    [{ unity: undefined }, /"unityRelease" is given without "unity"/],
    [{ displayName: ' ' }, /"displayName" is missing/],
    [{ dependencies: { lodash: '^4.0.0' } }, /dependencies: 'lodash' is not a valid package name/],
    [{ dependencies: { 'com.vendor.core': 'latest' } }, /'latest' \(for 'com.vendor.core'\) is not a valid semver/],
  ])('refuses %j', (change, problem) => {
    const problems = manifestProblems({ ...good, ...change });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });
});

describe('metaProblems', () => {
  const complete = [
    'package.json',
    'package.json.meta',
    'Runtime.meta',
    'Runtime/Tool.cs',
    'Runtime/Tool.cs.meta',
    'Runtime/Sub.meta',
    'Runtime/Sub/A.cs',
    'Runtime/Sub/A.cs.meta',
    'Samples~/Demo/Demo.cs',
    'Documentation~/index.md',
    'Runtime/.hidden',
  ];

  it('wants nothing more from a package Unity imported', () => {
    expect(metaProblems(complete)).toEqual([]);
  });

  it('names every file and folder without its .meta', () => {
    const missing = complete.filter((f) => f !== 'Runtime/Sub.meta' && f !== 'Runtime/Tool.cs.meta');
    expect(metaProblems(missing)).toEqual([
      'folder Runtime/Sub has no Runtime/Sub.meta',
      'file Runtime/Tool.cs has no Runtime/Tool.cs.meta',
    ]);
  });

  it('names a .meta without its file or folder, but not inside a folder ending in ~', () => {
    expect(metaProblems([...complete, 'Runtime/Gone.cs.meta', 'Old.meta', 'Samples~/Demo/Gone.cs.meta'])).toEqual([
      'Old.meta belongs to no file or folder of the package',
      'Runtime/Gone.cs.meta belongs to no file or folder of the package',
    ]);
  });
});
