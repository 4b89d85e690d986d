import type { ByteRange } from '../storage/ports.js';

/**
 * The one range a `Range` header asks of `size` bytes (RFC 9110 §14.1.2): `bytes=a-b`, `bytes=a-`
 * or the suffix `bytes=-n`, an end past the last byte cut to it. `unsatisfiable` when it starts
 * past the end (or asks for an empty suffix); undefined when the header is to be ignored (a
 * syntax this server does not read, several ranges), which means the whole body.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Infinity : Number(last);
  if (!Number.isSafeInteger(start) || end < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}
