import { createHash } from 'node:crypto';
import type { PackageDocument } from '@pkg/protocol';

/**
 * The next CouchDB-style revision, `<n>-<hash>`: n counts the writes, the hash is of the new
 * content. npm only echoes `_rev` back (`PUT /<name>/-rev/<rev>`), so any unique form works;
 * this one also tells two revisions apart at a glance.
 */
export function nextRevision(previous: string | undefined, doc: PackageDocument): string {
  const n = previous ? Number.parseInt(previous.split('-')[0] ?? '0', 10) || 0 : 0;
  const { _rev: _ignored, ...content } = doc;
  const hash = createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 32);
  return `${n + 1}-${hash}`;
}
