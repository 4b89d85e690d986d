import fc from 'fast-check';
import type { VersionSpec } from './documents.js';

export const semverText = (): fc.Arbitrary<string> =>
  fc
    .tuple(fc.nat(3), fc.nat(4), fc.nat(4), fc.option(fc.nat(3), { nil: undefined }))
    .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre === undefined ? '' : `-beta.${pre}`}`);

/** A published version: sometimes asking for an editor, sometimes deprecated. */
export const versionSpec = (): fc.Arbitrary<VersionSpec> =>
  fc.record(
    {
      v: semverText(),
      unity: fc.constantFrom('2021.3', '2022.3', '2023.1', '6000.0'),
      unityRelease: fc.constantFrom('0f1', '10f1', '11f1', '0b1'),
      deprecated: fc.constant('do not use'),
    },
    { requiredKeys: ['v'] },
  );

/** Up to twelve distinct published versions. */
export const versionList = (): fc.Arbitrary<VersionSpec[]> =>
  fc.uniqueArray(versionSpec(), { maxLength: 12, selector: (s) => s.v });
