import type { TenantId } from './ports.js';

/**
 * Where a version's tarball lives in the blob store. Tenant labels are DNS labels, so the
 * global registry's `_global` prefix cannot collide with a tenant.
 */
export function blobKeyFor(tenant: TenantId, name: string, version: string): string {
  return `${tenant === '' ? '_global' : tenant}/${name}/${name}-${version}.tgz`;
}

/** Refuses a key that could name something outside the store (`..`, empty segments, NUL). */
export function assertValidBlobKey(key: string): void {
  if (key.split('/').some((part) => part === '' || part === '.' || part === '..') || key.includes('\\') || key.includes('\0')) {
    throw new Error(`invalid blob key: ${key}`);
  }
}
