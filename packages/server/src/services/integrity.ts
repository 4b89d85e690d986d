import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { VersionRecord } from '@pkg/protocol';

const ALGORITHMS = new Set(['sha512', 'sha384', 'sha256', 'sha1']);

type Dist = Partial<VersionRecord['dist']> | undefined;

/**
 * Whether bytes are the tarball a version record describes: its `dist.integrity` (SRI, any of
 * the listed hashes matching), else its `dist.shasum`. Fed piece by piece (`update`), so a
 * tarball of any size is checked as it streams; `verdict` is undefined when the record names
 * no hash.
 */
export class DistCheck {
  readonly #hashes: { hash: Hash; digest: string; encoding: 'base64' | 'hex' }[] = [];

  constructor(dist: Dist) {
    const entries = (dist?.integrity ?? '')
      .split(/\s+/)
      .map((entry) => /^([a-z0-9]+)-([A-Za-z0-9+/=]+)(\?.*)?$/.exec(entry))
      .filter((match): match is RegExpExecArray => match !== null && ALGORITHMS.has(match[1]!));
    for (const [, algorithm, digest] of entries) {
      this.#hashes.push({ hash: createHash(algorithm!), digest: digest!, encoding: 'base64' });
    }
    if (this.#hashes.length === 0 && typeof dist?.shasum === 'string' && /^[0-9a-f]{40}$/i.test(dist.shasum)) {
      this.#hashes.push({ hash: createHash('sha1'), digest: dist.shasum.toLowerCase(), encoding: 'hex' });
    }
  }

  update(bytes: Uint8Array): void {
    for (const { hash } of this.#hashes) hash.update(bytes);
  }

  verdict(): boolean | undefined {
    if (this.#hashes.length === 0) return undefined;
    return this.#hashes.some(({ hash, digest, encoding }) => hash.digest(encoding) === digest);
  }
}

/** `DistCheck` of bytes held whole. */
export function matchesDist(data: Buffer, dist: Dist): boolean | undefined {
  const check = new DistCheck(dist);
  check.update(data);
  return check.verdict();
}

/** `DistCheck` of a stream, read to its end (nothing of it is kept). */
export async function streamMatchesDist(stream: Readable, dist: Dist): Promise<boolean | undefined> {
  const check = new DistCheck(dist);
  for await (const chunk of stream) check.update(chunk as Uint8Array);
  return check.verdict();
}
