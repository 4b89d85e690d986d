import { describe, expect, it } from 'vitest';
import { checkPackageName, MAX_PACKAGE_NAME_LENGTH } from '@pkg/protocol';

describe('checkPackageName', () => {
  it.each(['com.vendor.name', 'com.unity.textmeshpro', 'a.b', 'com.vendor.input-system', 'io.x_y.z9', '0.1'])(
    'accepts %s',
    (name) => {
      expect(checkPackageName(name)).toEqual({ ok: true, name });
    },
  );

  it.each([
    ['', 'non-empty'],
    ['single', 'at least 2'],
    ['Com.Vendor.Name', 'lowercase'],
    ['@scope/name', 'scoped'],
    ['com/vendor', 'scoped'],
    ['com..vendor', 'bad segment'],
    ['.com.vendor', 'bad segment'],
    ['com.vendor.', 'bad segment'],
    ['com.-vendor', 'bad segment'],
    ['com.ven dor', 'bad segment'],
    ['com.%2e.x', 'bad segment'],
    ['com.vendor.' + 'a'.repeat(MAX_PACKAGE_NAME_LENGTH), 'at most 214'],
  ])('rejects %j naming the rule', (name, rule) => {
    const result = checkPackageName(name);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.rule).toContain(rule);
  });

  it('accepts exactly 214 characters and rejects 215', () => {
    const base = 'com.v.';
    expect(checkPackageName(base + 'a'.repeat(214 - base.length)).ok).toBe(true);
    expect(checkPackageName(base + 'a'.repeat(215 - base.length)).ok).toBe(false);
  });

  it('rejects non-strings', () => {
    expect(checkPackageName(42).ok).toBe(false);
    expect(checkPackageName(null).ok).toBe(false);
  });

  it('can require three segments', () => {
    expect(checkPackageName('com.vendor', 3).ok).toBe(false);
    expect(checkPackageName('com.vendor.x', 3).ok).toBe(true);
  });
});
