import { createHash } from 'node:crypto';
import type { VersionRecord } from '@pkg/protocol';

const ALGORITHMS = new Set(['sha512', 'sha384', 'sha256', 'sha1']);

/**
 * Whether `data` is the tarball a version record describes: its `dist.integrity` (SRI, any of
 * the listed hashes matching), else its `dist.shasum`. `undefined`: the record names no hash.
 */
export function matchesDist(data: Buffer, dist: Partial<VersionRecord['dist']> | undefined): boolean | undefined {
  const entries = (dist?.integrity ?? '')
    .split(/\s+/)
    .map((entry) => /^([a-z0-9]+)-([A-Za-z0-9+/=]+)(\?.*)?$/.exec(entry))
    .filter((match): match is RegExpExecArray => match !== null && ALGORITHMS.has(match[1]!));
  if (entries.length > 0) {
    return entries.some(([, algorithm, digest]) => createHash(algorithm!).update(data).digest('base64') === digest);
  }
  if (typeof dist?.shasum === 'string' && /^[0-9a-f]{40}$/i.test(dist.shasum)) {
    return createHash('sha1').update(data).digest('hex') === dist.shasum.toLowerCase();
  }
  return undefined;
}
