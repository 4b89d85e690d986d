import type { ServerDeps } from '../deps.js';
import { GLOBAL_TENANT, type TenantId } from '../storage/ports.js';
import { measureVersions } from '../storage/storage-usage.js';

/**
 * Measures the blobs of versions published before the registry recorded sizes (the storage
 * usage migration lists them without one), so that quotas and `/-/metrics` count them: each
 * package is written again with the sizes, under its lock, the document unchanged. Runs in the
 * background once the server listens; on PostgreSQL every node may run it, and a second
 * measurement of a version writes the same size.
 */
export async function measureUnmeasuredVersions(
  deps: Pick<ServerDeps, 'registry' | 'packages' | 'blobs' | 'usage'>,
  signal?: AbortSignal,
): Promise<number> {
  const tenants: TenantId[] = [GLOBAL_TENANT, ...(await deps.registry.tenants.list()).map((tenant) => tenant.name)];
  let measured = 0;
  for (const tenant of tenants) {
    const byPackage = new Map<string, string[]>();
    for (const { name, version } of await deps.usage.unmeasured(tenant)) {
      byPackage.set(name, [...(byPackage.get(name) ?? []), version]);
    }
    for (const [name, versions] of byPackage) {
      if (signal?.aborted) return measured;
      measured += await deps.packages.package(tenant, name).update(async (current) => {
        if (!current || current.unpublished) return { next: null, result: 0 };
        const added = await measureVersions(deps.blobs, tenant, name, current, versions);
        const count = Object.keys(added).length;
        return count === 0 ? { next: null, result: 0 } : { next: { ...current, usage: { added } }, result: count };
      });
    }
  }
  return measured;
}
