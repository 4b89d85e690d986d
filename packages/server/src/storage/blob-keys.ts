import type { TenantId } from './ports.js';

function tenantPrefix(tenant: TenantId): string {
  return tenant === '' ? '_global' : tenant;
}

/**
 * Where a version's tarball lives in the blob store. Tenant labels are DNS labels, so the
 * global registry's `_global` prefix cannot collide with a tenant.
 */
export function blobKeyFor(tenant: TenantId, name: string, version: string): string {
  return `${tenantPrefix(tenant)}/${name}/${name}-${version}.tgz`;
}

/** Where a version's sigstore provenance bundle (an optional publish attachment) lives. */
export function sigstoreKeyFor(tenant: TenantId, name: string, version: string): string {
  return `${tenantPrefix(tenant)}/${name}/${name}-${version}.sigstore`;
}

/** Every blob key a published version may own; orphan collection keeps these. */
export function blobKeysOfVersion(tenant: TenantId, name: string, version: string): string[] {
  return [blobKeyFor(tenant, name, version), sigstoreKeyFor(tenant, name, version)];
}
