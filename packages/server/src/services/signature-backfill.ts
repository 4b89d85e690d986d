import type { PackageDocument, VersionRecord } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import { GLOBAL_TENANT, type TenantId } from '../storage/ports.js';
import { isCachedCopy } from './uplinks/upstream-document.js';
import { RegistrySignatures, signWith } from './registry-signatures.js';
import { nextRevision } from './revisions.js';

export type SignatureBackfillDeps = Pick<ServerDeps, 'registry' | 'packages' | 'signingKeys' | 'bus' | 'now'>;

/**
 * The one-time job of the upgrade that brought registry signatures: signs every version
 * published here before its registry had a key. Each registry is done once (the store
 * remembers it); versions published since carry their signature from the publish. Cached
 * upstream packages are never signed: they keep the upstream's signatures. Idempotent, so
 * several nodes starting at once only repeat each other's work; stops between packages when
 * `signal` aborts and goes on at the next start. Returns the number of versions signed.
 */
export async function signVersionsPublishedBefore(deps: SignatureBackfillDeps, signal?: AbortSignal): Promise<number> {
  const tenants: TenantId[] = [GLOBAL_TENANT, ...(await deps.registry.tenants.list()).map((t) => t.name)];
  const signatures = new RegistrySignatures(deps);
  let signed = 0;
  for (const tenant of tenants) {
    if (await deps.signingKeys.backfilled(tenant)) continue;
    for (const name of await deps.packages.listPackageNames(tenant)) {
      if (signal?.aborted) return signed;
      const key = await signatures.signingKey(tenant);
      const added = await deps.packages.package(tenant, name).update((current) => {
        if (!current || current.unpublished || isCachedCopy(current.document)) return { next: null, result: 0 };
        const { document, count } = withSignatures(current.document, (record) =>
          signWith(key, name, record.version, record.dist.integrity),
        );
        if (count === 0) return { next: null, result: 0 };
        document._rev = nextRevision(current.document._rev, document);
        return { next: { ...current, document }, result: count };
      });
      if (added > 0) await deps.bus.publish(tenant, name);
      signed += added;
    }
    await deps.signingKeys.markBackfilled(tenant, deps.now().toISOString());
  }
  return signed;
}

/** The document with a signature added to each version that has none (and an integrity to sign). */
function withSignatures(
  doc: PackageDocument,
  signatureOf: (record: VersionRecord) => { keyid: string; sig: string },
): { document: PackageDocument; count: number } {
  let count = 0;
  const versions: Record<string, VersionRecord> = {};
  for (const [version, record] of Object.entries(doc.versions)) {
    const unsigned = !Array.isArray(record.dist.signatures) || record.dist.signatures.length === 0;
    if (unsigned && typeof record.dist.integrity === 'string' && record.dist.integrity !== '') {
      versions[version] = { ...record, dist: { ...record.dist, signatures: [signatureOf(record)] } };
      count++;
    } else {
      versions[version] = record;
    }
  }
  return { document: { ...doc, versions }, count };
}
