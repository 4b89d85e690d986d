import type { TenantId } from './ports.js';

/**
 * Where a version's tarball lives in the blob store. Tenant labels are DNS labels, so the
 * global registry's `_global` prefix cannot collide with a tenant.
 */
export function blobKeyFor(tenant: TenantId, name: string, version: string): string {
  return `${tenant === '' ? '_global' : tenant}/${name}/${name}-${version}.tgz`;
}
