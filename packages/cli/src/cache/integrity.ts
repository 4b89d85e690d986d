/**
 * Checking downloaded bytes against a version record's `dist.integrity` (Subresource Integrity:
 * `sha512-<base64>`, possibly several space-separated) or, from older registries, `dist.shasum`.
 */
import { createHash } from 'node:crypto';

const STRENGTH = ['sha512', 'sha384', 'sha256', 'sha1'] as const;
type Algorithm = (typeof STRENGTH)[number];

export interface ExpectedDigest {
  algorithm: Algorithm;
  /** base64 */
  digest: string;
}

/** The strongest digest the record gives; null when it gives none we can check. */
export function expectedDigest(dist: { integrity?: unknown; shasum?: unknown } | undefined): ExpectedDigest | null {
  const found: ExpectedDigest[] = [];
  if (typeof dist?.integrity === 'string') {
    for (const part of dist.integrity.trim().split(/\s+/)) {
      const m = /^(sha512|sha384|sha256|sha1)-([A-Za-z0-9+/=]+)(?:\?.*)?$/.exec(part);
      if (m) found.push({ algorithm: m[1] as Algorithm, digest: m[2]! });
    }
  }
  if (typeof dist?.shasum === 'string' && /^[0-9a-f]{40}$/i.test(dist.shasum)) {
    found.push({ algorithm: 'sha1', digest: Buffer.from(dist.shasum, 'hex').toString('base64') });
  }
  found.sort((a, b) => STRENGTH.indexOf(a.algorithm) - STRENGTH.indexOf(b.algorithm));
  return found[0] ?? null;
}

export function matchesDigest(data: Uint8Array, expected: ExpectedDigest): boolean {
  return createHash(expected.algorithm).update(data).digest('base64') === expected.digest;
}
