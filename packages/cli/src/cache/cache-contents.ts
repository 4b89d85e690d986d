/**
 * What the tarball cache holds, for `pkg cache ls|verify|clean`: verified tarballs
 * (`<name>/<version>.tgz` with the integrity recorded beside them), partial downloads waiting to
 * be resumed (`.<version>.tgz.<digest>.partial`), and leftovers of killed runs (`*.tmp`).
 */
import path from 'node:path';
import { isPackageName, isSemver } from '@pkg/protocol';
import type { FileSystem } from '../deps.js';
import { digestOf } from './tarball-cache.js';
import { expectedDigest } from './integrity.js';

export interface CacheEntry {
  package: string;
  version: string;
  path: string;
  size: number;
}

export interface CacheContents {
  tarballs: CacheEntry[];
  /** Downloads cut off, resumed by the next fetch of that version. */
  partial: CacheEntry[];
  /** Temporary files no download will use again. */
  leftovers: { path: string; size: number }[];
}

const PARTIAL = /^\.(.+)\.tgz\.[0-9a-f]{16}\.partial$/;

export async function readCache(fs: FileSystem, dir: string): Promise<CacheContents> {
  const contents: CacheContents = { tarballs: [], partial: [], leftovers: [] };
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => isPackageName(n)).sort();
  for (const name of names) {
    const folder = path.join(dir, name);
    for (const entry of (await fs.readdir(folder).catch(() => [] as string[])).sort()) {
      const file = path.join(folder, entry);
      const stat = await fs.stat(file).catch(() => null);
      if (!stat?.isFile()) continue;
      const partial = PARTIAL.exec(entry);
      if (entry.endsWith('.tgz') && isSemver(entry.slice(0, -4))) {
        contents.tarballs.push({ package: name, version: entry.slice(0, -4), path: file, size: stat.size });
      } else if (partial && isSemver(partial[1]!)) {
        contents.partial.push({ package: name, version: partial[1], path: file, size: stat.size });
      } else if (entry.startsWith('.') && entry.endsWith('.tmp')) {
        contents.leftovers.push({ path: file, size: stat.size });
      }
    }
  }
  return contents;
}

export type Verdict = 'ok' | 'corrupt' | 'unrecorded';

/** A cached tarball against the integrity recorded when it was downloaded. */
export async function verifyEntry(fs: FileSystem, entry: CacheEntry): Promise<Verdict> {
  const recorded = await fs.readFile(`${entry.path}.integrity`, 'utf8').catch(() => null);
  const expected = recorded === null ? null : expectedDigest({ integrity: recorded.trim() });
  if (!expected) return 'unrecorded';
  return (await digestOf(fs, entry.path, expected.algorithm)) === expected.digest ? 'ok' : 'corrupt';
}
