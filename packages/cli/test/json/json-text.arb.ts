import fc from 'fast-check';

export interface TextStyle {
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

export const textStyle = (): fc.Arbitrary<TextStyle> =>
  fc.record({
    indent: fc.constantFrom('  ', '    ', '\t'),
    eol: fc.constantFrom('\n' as const, '\r\n' as const),
    finalNewline: fc.boolean(),
  });

/** JSON text of `value` written the way an editor would write it in that style. */
export function writeInStyle(value: unknown, style: TextStyle): string {
  const text = JSON.stringify(value, null, style.indent).split('\n').join(style.eol);
  return style.finalNewline ? text + style.eol : text;
}

/** Reverse-DNS package names. */
export const packageName = (): fc.Arbitrary<string> =>
  fc.array(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { minLength: 2, maxLength: 4 }).map((segments) => segments.join('.'));

export const version = (): fc.Arbitrary<string> =>
  fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20)).map(([a, b, c]) => `${a}.${b}.${c}`);

/** A Unity-like manifest: dependencies first, sometimes other keys around it. */
export const manifest = (): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .tuple(fc.dictionary(packageName(), version(), { maxKeys: 8 }), fc.boolean(), fc.array(packageName(), { maxLength: 3 }))
    .map(([dependencies, withRegistries, scopes]) => {
      const result: Record<string, unknown> = { dependencies };
      if (withRegistries) result.scopedRegistries = [{ name: 'example', url: 'https://example.com', scopes }];
      result.testables = ['com.unity.test'];
      return result;
    });
