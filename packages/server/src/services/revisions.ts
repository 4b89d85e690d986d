import { randomBytes } from 'node:crypto';
import type { PackageDocument } from '@pkg/protocol';

/**
 * The next CouchDB-style revision, `<n>-<token>`: n counts the writes, the token is random. npm
 * only echoes `_rev` back (`PUT /<name>/-rev/<rev>`), so any unique form works; CouchDB's hash
 * of the content would cost a second serialization of the whole document on every write, which
 * for a package of a thousand versions is most of the time a publish takes.
 */
export function nextRevision(previous: string | undefined, _doc: PackageDocument): string {
  const n = previous ? Number.parseInt(previous.split('-')[0] ?? '0', 10) || 0 : 0;
  return `${n + 1}-${randomBytes(16).toString('hex')}`;
}
