import fc from 'fast-check';
import { UNITY_RELEASE_KINDS, type UnityVersion } from '@pkg/protocol';

/** A number as Unity writes one: small most of the time, up to the nine digits the parser takes. */
export const versionNumber = (): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 40 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 999_999_999 }) },
  );

export const releaseKind = () => fc.constantFrom(...UNITY_RELEASE_KINDS);

/** Any editor version, regional builds included. */
export const unityVersion = (): fc.Arbitrary<UnityVersion> =>
  fc.record({
    major: fc.oneof(fc.integer({ min: 2017, max: 2023 }), fc.constant(6000), versionNumber()),
    minor: versionNumber(),
    patch: versionNumber(),
    kind: releaseKind(),
    build: versionNumber(),
    regional: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 9 }) }),
  });

/** Two or three versions sharing major.minor.patch, so the kind and build decide their order. */
export const sameReleaseLine = (): fc.Arbitrary<[UnityVersion, UnityVersion, UnityVersion]> =>
  fc.tuple(unityVersion(), versionNumber(), versionNumber(), versionNumber()).map(([base, b1, b2, b3]) => [
    { ...base, kind: 'a', build: b1 },
    { ...base, kind: 'b', build: b2 },
    { ...base, kind: 'f', build: b3 },
  ]);
