import { blobKeyFor } from '../storage/blob-keys.js';
import { GLOBAL_TENANT, type TenantId } from '../storage/ports.js';
import type { Storage } from '../storage/create-storage.js';
import { streamMatchesDist } from '../services/integrity.js';

export interface VerifyReport {
  packages: number;
  /** Tarballs read whole and matched against their version's integrity. */
  tarballs: number;
  /** Versions cached from an uplink whose tarball nobody downloaded yet (fetched on demand). */
  notYetFetched: number;
  problems: string[];
}

/**
 * `pkg-registry verify`: every version of every package, in every tenant, has its tarball, and
 * the tarball's bytes match the version's `dist.integrity` (or `shasum`). Reads only; safe
 * while the registry serves (a version published meanwhile may or may not be seen).
 */
export async function verifyRegistry(
  storage: Pick<Storage, 'registry' | 'packages' | 'blobs'>,
  onProgress: (line: string) => void = () => undefined,
): Promise<VerifyReport> {
  const report: VerifyReport = { packages: 0, tarballs: 0, notYetFetched: 0, problems: [] };
  const tenants: TenantId[] = [GLOBAL_TENANT, ...(await storage.registry.tenants.list()).map((tenant) => tenant.name)];
  for (const tenant of tenants) {
    const names = await storage.packages.listPackageNames(tenant, { includeUnpublished: true });
    for (const name of names) {
      const pkg = await storage.packages.package(tenant, name).read();
      if (!pkg) continue;
      report.packages++;
      const where = tenant === GLOBAL_TENANT ? name : `${tenant}/${name}`;
      for (const [version, record] of Object.entries(pkg.document.versions)) {
        const blob = await storage.blobs.get(blobKeyFor(tenant, name, version));
        if (!blob) {
          if (/^https?:\/\//i.test(record.dist.tarball)) report.notYetFetched++;
          else report.problems.push(`${where}@${version}: the tarball is missing`);
          continue;
        }
        const verdict = await streamMatchesDist(blob.stream, record.dist);
        if (verdict === true) report.tarballs++;
        else
          report.problems.push(
            `${where}@${version}: the tarball ${verdict === false ? 'does not match its integrity' : 'has no integrity to check'}`,
          );
      }
    }
    onProgress(`${tenant === GLOBAL_TENANT ? 'global registry' : `tenant ${tenant}`}: ${names.length} packages`);
  }
  return report;
}
