import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareUnityVersions,
  formatUnityRequirement,
  formatUnityVersion,
  isUnityCompatible,
  isUnityMinVersion,
  isUnityRelease,
  parseUnityRequirement,
  parseUnityVersion,
  type UnityVersion,
} from '@pkg/protocol';
import { sameReleaseLine, unityVersion } from './engine-version.arb.js';

const v = (text: string): UnityVersion => {
  const parsed = parseUnityVersion(text);
  if (!parsed) throw new Error(`test input ${text} does not parse`);
  return parsed;
};

describe('parseUnityVersion', () => {
  it.each([
    ['2019.4.40f1', { major: 2019, minor: 4, patch: 40, kind: 'f', build: 1, regional: 0 }],
    ['2022.3.10f1', { major: 2022, minor: 3, patch: 10, kind: 'f', build: 1, regional: 0 }],
    ['6000.0.23f1', { major: 6000, minor: 0, patch: 23, kind: 'f', build: 1, regional: 0 }],
    ['2022.3.62f3c1', { major: 2022, minor: 3, patch: 62, kind: 'f', build: 3, regional: 1 }],
    ['2023.1.0a14', { major: 2023, minor: 1, patch: 0, kind: 'a', build: 14, regional: 0 }],
    ['2023.1.0b2', { major: 2023, minor: 1, patch: 0, kind: 'b', build: 2, regional: 0 }],
    ['5.6.4p1', { major: 5, minor: 6, patch: 4, kind: 'p', build: 1, regional: 0 }],
    ['2018.3.0x1', { major: 2018, minor: 3, patch: 0, kind: 'x', build: 1, regional: 0 }],
  ])('parses %s', (text, expected) => {
    expect(parseUnityVersion(text)).toEqual(expected);
  });

  it.each([
    '',
    '2022.3',
    '2022.3.10',
    '2022.3.10f',
    '2022.3.10F1',
    '2022.3.10r1',
    '2022.3.10f1 ',
    ' 2022.3.10f1',
    '2022.3.10f1 (ff3792e53c62)',
    '2022.03.10f1',
    '2022.3.010f1',
    '2022.3.10f1c',
    '2022.3.10f1c01',
    'v2022.3.10f1',
    '2022.3.10f1234567890',
    '-2022.3.10f1',
  ])('rejects %j', (text) => {
    expect(parseUnityVersion(text)).toBeNull();
  });

  it('round-trips every version through its text', () => {
    fc.assert(
      fc.property(unityVersion(), (version) => {
        expect(parseUnityVersion(formatUnityVersion(version))).toEqual(version);
      }),
    );
  });

  it('rejects any version text with something appended', () => {
    fc.assert(
      fc.property(unityVersion(), fc.constantFrom(' ', '.', 'f', 'c', '-', 'x1', '\n'), (version, tail) => {
        const text = formatUnityVersion(version);
        // `…f1` + `c` + digits would be a regional build, a valid version; only test true garbage.
        expect(parseUnityVersion(text + tail)).toBeNull();
      }),
    );
  });
});

describe('compareUnityVersions', () => {
  it.each([
    ['2019.4.40f1', '2022.3.10f1'],
    ['2022.3.9f1', '2022.3.10f1'],
    ['2022.3.10f1', '2022.3.10f2'],
    ['2022.3.62f3', '2022.3.62f3c1'],
    ['2022.3.62f3c1', '2022.3.62f3c2'],
    ['2022.3.62f3c1', '2022.3.62f4'],
    ['2023.1.0a14', '2023.1.0b1'],
    ['2023.1.0b9', '2023.1.0b10'],
    ['2023.1.0b10', '2023.1.0f1'],
    ['2023.1.0f1', '2023.1.0p1'],
    ['2018.3.0x1', '2018.3.0a1'],
    ['2023.2.20f1', '6000.0.0b1'],
    ['6000.0.23f1', '6000.1.0a1'],
  ])('%s < %s', (older, newer) => {
    expect(compareUnityVersions(v(older), v(newer))).toBeLessThan(0);
    expect(compareUnityVersions(v(newer), v(older))).toBeGreaterThan(0);
  });

  it('is zero exactly for equal versions', () => {
    fc.assert(
      fc.property(unityVersion(), unityVersion(), (a, b) => {
        expect(compareUnityVersions(a, a)).toBe(0);
        expect(compareUnityVersions(a, b) === 0).toBe(formatUnityVersion(a) === formatUnityVersion(b));
      }),
    );
  });

  it('is antisymmetric', () => {
    fc.assert(
      fc.property(unityVersion(), unityVersion(), (a, b) => {
        expect(Math.sign(compareUnityVersions(a, b))).toBe(-Math.sign(compareUnityVersions(b, a)));
      }),
    );
  });

  it('is transitive', () => {
    fc.assert(
      fc.property(unityVersion(), unityVersion(), unityVersion(), (a, b, c) => {
        const [x, y, z] = [a, b, c].sort(compareUnityVersions) as [UnityVersion, UnityVersion, UnityVersion];
        expect(compareUnityVersions(x, y)).toBeLessThanOrEqual(0);
        expect(compareUnityVersions(y, z)).toBeLessThanOrEqual(0);
        expect(compareUnityVersions(x, z)).toBeLessThanOrEqual(0);
      }),
    );
  });

  it('orders alpha < beta < final within one major.minor.patch, whatever the build numbers', () => {
    fc.assert(
      fc.property(sameReleaseLine(), ([alpha, beta, final]) => {
        expect(compareUnityVersions(alpha, beta)).toBeLessThan(0);
        expect(compareUnityVersions(beta, final)).toBeLessThan(0);
        expect(compareUnityVersions(alpha, final)).toBeLessThan(0);
      }),
    );
  });

  it('orders by major, then minor, then patch before anything else', () => {
    fc.assert(
      fc.property(unityVersion(), unityVersion(), (a, b) => {
        const numeric = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
        if (numeric !== 0) expect(Math.sign(compareUnityVersions(a, b))).toBe(Math.sign(numeric));
      }),
    );
  });
});

describe('the unity and unityRelease fields', () => {
  it.each(['2021.3', '6000.0', '2019.4', '5.6'])('accepts unity %j', (value) => {
    expect(isUnityMinVersion(value)).toBe(true);
  });

  it.each(['2021', '2021.3.0', '2021.3f1', 'latest', '', ' 2021.3', '2021.03', 2021.3, null])('rejects unity %j', (value) => {
    expect(isUnityMinVersion(value)).toBe(false);
  });

  it.each(['0f1', '10b3', '0a14', '62f3c1', '4p1'])('accepts unityRelease %j', (value) => {
    expect(isUnityRelease(value)).toBe(true);
  });

  it.each(['f1', '0f', '0F1', '0.f1', '0r1', '', 1, undefined])('rejects unityRelease %j', (value) => {
    expect(isUnityRelease(value)).toBe(false);
  });

  it('reads a requirement with and without a release', () => {
    expect(parseUnityRequirement('2021.3')).toEqual({ major: 2021, minor: 3 });
    expect(parseUnityRequirement('2021.3', '')).toEqual({ major: 2021, minor: 3 });
    expect(parseUnityRequirement('2021.3', '0f1')).toEqual({
      major: 2021,
      minor: 3,
      release: { patch: 0, kind: 'f', build: 1, regional: 0 },
    });
    expect(parseUnityRequirement('2021.3', 'x')).toBeNull();
    expect(parseUnityRequirement('2021', '0f1')).toBeNull();
  });

  it('formats a requirement as a person reads it', () => {
    expect(formatUnityRequirement({ major: 2021, minor: 3 })).toBe('2021.3');
    expect(formatUnityRequirement(parseUnityRequirement('2022.3', '62f3c1')!)).toBe('2022.3.62f3c1');
  });
});

describe('isUnityCompatible', () => {
  it.each([
    ['2022.3.10f1', undefined, undefined, true],
    ['2022.3.10f1', '2022.3', undefined, true],
    ['2022.3.0a1', '2022.3', undefined, true],
    ['2022.3.10f1', '2021.3', '30f1', true],
    ['2022.3.10f1', '2022.3', '10f1', true],
    ['2022.3.10f1', '2022.3', '10f2', false],
    ['2022.3.10f1', '2022.3', '11f1', false],
    ['2022.3.10b1', '2022.3', '10f1', false],
    ['2022.3.10f1', '2023.1', undefined, false],
    ['2022.3.10f1', '6000.0', undefined, false],
    ['6000.0.23f1', '2022.3', '62f3', true],
    ['2022.3.62f3c1', '2022.3', '62f3', true],
    ['2022.3.62f3', '2022.3', '62f3c1', false],
    ['2019.4.40f1', '2019.4', '', true],
    ['2022.3.10f1', 'nonsense', undefined, false],
    ['2022.3.10f1', '2021.3', 'nonsense', false],
  ])('editor %s, unity %j, unityRelease %j → %s', (editor, unity, release, expected) => {
    expect(isUnityCompatible(v(editor), unity, release)).toBe(expected);
  });

  it('an editor meets exactly the requirements at or below its own version', () => {
    fc.assert(
      fc.property(unityVersion(), unityVersion(), (editor, wanted) => {
        const release = `${wanted.patch}${wanted.kind}${wanted.build}${wanted.regional ? `c${wanted.regional}` : ''}`;
        const compatible = isUnityCompatible(editor, `${wanted.major}.${wanted.minor}`, release);
        expect(compatible).toBe(compareUnityVersions(editor, wanted) >= 0);
      }),
    );
  });

  it('stays compatible as the editor gets newer', () => {
    fc.assert(
      fc.property(
        unityVersion(),
        unityVersion(),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 9 }),
        (a, b, major, minor) => {
          const [older, newer] = [a, b].sort(compareUnityVersions) as [UnityVersion, UnityVersion];
          const unity = `${major}.${minor}`;
          if (isUnityCompatible(older, unity)) expect(isUnityCompatible(newer, unity)).toBe(true);
        },
      ),
    );
  });
});
