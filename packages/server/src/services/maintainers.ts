import { ProtocolError } from '@pkg/protocol';
import type { StoredPackage } from '../storage/ports.js';

/** Only a package's maintainers may change it (publish, tags, deprecate, unpublish, owners). */
export function requireMaintainer(stored: StoredPackage | undefined, user: string, name: string): void {
  if (stored === undefined) return;
  if (!stored.document.maintainers.some((m) => m.name === user)) {
    throw new ProtocolError('FORBIDDEN', `You are not a maintainer of '${name}'`);
  }
}
