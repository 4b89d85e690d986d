import { describe, expect, it } from 'vitest';
import { parseByteRange } from '../../src/http/byte-range.js';

describe('parseByteRange (RFC 9110 single ranges)', () => {
  it.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100, end: 999 }],
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=990-5000', { start: 990, end: 999 }],
    ['bytes=999-999', { start: 999, end: 999 }],
    [' Bytes = 1 - 2 ', { start: 1, end: 2 }],
  ])('%s of 1000 bytes', (header, range) => {
    expect(parseByteRange(header, 1000)).toEqual(range);
  });

  it.each([['bytes=1000-'], ['bytes=1000-2000'], ['bytes=-0']])('%s of 1000 bytes cannot be satisfied', (header) => {
    expect(parseByteRange(header, 1000)).toBe('unsatisfiable');
  });

  it.each([[undefined], ['bytes=5-1'], ['bytes=-'], ['bytes=0-1,5-6'], ['items=0-1'], ['bytes=a-b'], ['bytes=0x10-']])(
    '%s is ignored (the whole body)',
    (header) => {
      expect(parseByteRange(header, 1000)).toBeUndefined();
    },
  );

  it('an empty file satisfies no range', () => {
    expect(parseByteRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=-1', 0)).toBe('unsatisfiable');
  });
});
