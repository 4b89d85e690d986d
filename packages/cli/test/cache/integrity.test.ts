import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectedDigest, matchesDigest } from '../../src/cache/integrity.js';

const data = Buffer.from('tarball bytes');
const sri = (algorithm: string) => `${algorithm}-${createHash(algorithm).update(data).digest('base64')}`;

describe('expectedDigest and matchesDigest', () => {
  it.each(['sha512', 'sha384', 'sha256', 'sha1'])('checks %s integrity', (algorithm) => {
    const expected = expectedDigest({ integrity: sri(algorithm) })!;
    expect(expected.algorithm).toBe(algorithm);
    expect(matchesDigest(data, expected)).toBe(true);
    expect(matchesDigest(Buffer.from('other bytes'), expected)).toBe(false);
  });

  it('takes the strongest of several, and a hex shasum only as a last resort', () => {
    expect(expectedDigest({ integrity: `${sri('sha1')} ${sri('sha512')}`, shasum: 'ab'.repeat(20) })?.algorithm).toBe('sha512');
    const shasum = createHash('sha1').update(data).digest('hex');
    const fromShasum = expectedDigest({ shasum })!;
    expect(fromShasum.algorithm).toBe('sha1');
    expect(matchesDigest(data, fromShasum)).toBe(true);
  });

  it.each([undefined, {}, { integrity: 'md5-abc' }, { integrity: 42 }, { shasum: 'nothex' }])(
    'finds nothing to check in %j',
    (dist) => {
      expect(expectedDigest(dist as never)).toBeNull();
    },
  );
});
