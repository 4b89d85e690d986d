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

/** The package whose directory holds a blob key, or undefined for a key of no package. */
export function packageOfBlobKey(key: string): { tenant: TenantId; name: string; dir: string } | undefined {
  const [prefix, name, file] = key.split('/');
  if (!prefix || !name || !file) return undefined;
  return { tenant: prefix === '_global' ? '' : prefix, name, dir: `${prefix}/${name}` };
}

/** Refuses a key that could name something outside the store (`..`, empty segments, NUL). */
export function assertValidBlobKey(key: string): void {
  if (key.split('/').some((part) => part === '' || part === '.' || part === '..') || key.includes('\\') || key.includes('\0')) {
    throw new Error(`invalid blob key: ${key}`);
  }
}
