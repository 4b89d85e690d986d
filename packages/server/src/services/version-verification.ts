import type { VersionRecord } from '@pkg/protocol';
import { streamMatchesDist } from './integrity.js';
import type { ServerDeps } from '../deps.js';
import { blobKeyFor } from '../storage/blob-keys.js';
import type { TenantId } from '../storage/ports.js';
import { isCachedCopy } from './uplinks/upstream-document.js';
import { verifyRegistrySignature, type PublicKeyEntry } from './registry-signatures.js';

/** What is wrong with one stored version. */
export interface VersionProblem {
  name: string;
  version: string;
  problem: string;
}

export interface VerificationReport {
  checked: number;
  problems: VersionProblem[];
}

/**
 * Checks what the registry serves against what it signed: each local version's tarball in the
 * blob store is hashed and compared with `dist.integrity` (a tarball changed in storage after
 * publish is found), and its `dist.signatures` verified with the registry's keys exactly as npm
 * does (the key must exist and not have expired before the version's publish time). Cached
 * upstream packages are skipped: their signatures are the upstream's.
 */
export async function verifyStoredVersions(
  deps: Pick<ServerDeps, 'packages' | 'blobs' | 'signingKeys'>,
  tenant: TenantId,
  names?: readonly string[],
): Promise<VerificationReport> {
  const keys: (Pick<PublicKeyEntry, 'keyid' | 'key'> & { expires: string | null })[] = (await deps.signingKeys.list(tenant)).map(
    (key) => ({ keyid: key.keyid, key: key.publicKey, expires: key.expiresAt }),
  );
  const report: VerificationReport = { checked: 0, problems: [] };
  for (const name of names ?? (await deps.packages.listPackageNames(tenant))) {
    const stored = await deps.packages.package(tenant, name).read();
    if (!stored || stored.unpublished) {
      if (names) report.problems.push({ name, version: '', problem: 'no such package' });
      continue;
    }
    if (isCachedCopy(stored.document)) continue;
    for (const [version, record] of Object.entries(stored.document.versions)) {
      report.checked++;
      const problem =
        signatureProblem(keys, name, version, record, stored.document.time[version]) ??
        (await tarballProblem(deps, tenant, name, version, record));
      if (problem) report.problems.push({ name, version, problem });
    }
  }
  return report;
}

function signatureProblem(
  keys: readonly (Pick<PublicKeyEntry, 'keyid' | 'key'> & { expires: string | null })[],
  name: string,
  version: string,
  record: VersionRecord,
  publishedAt: string | undefined,
): string | undefined {
  const signatures = (record.dist.signatures ?? []) as { keyid: string; sig: string }[];
  if (signatures.length === 0) return 'no registry signature';
  for (const signature of signatures) {
    const key = keys.find((k) => k.keyid === signature.keyid);
    if (!key) return `signed with ${signature.keyid}, which is not a key of this registry`;
    if (key.expires !== null && publishedAt !== undefined && Date.parse(publishedAt) >= Date.parse(key.expires)) {
      return `signed with ${signature.keyid}, which expired (${key.expires}) before the version was published`;
    }
    if (!verifyRegistrySignature(keys, name, version, record.dist.integrity, signature)) {
      return `the registry signature does not match ${name}@${version}:${record.dist.integrity}`;
    }
  }
  return undefined;
}

async function tarballProblem(
  deps: Pick<ServerDeps, 'blobs'>,
  tenant: TenantId,
  name: string,
  version: string,
  record: VersionRecord,
): Promise<string | undefined> {
  const blob = await deps.blobs.get(blobKeyFor(tenant, name, version));
  if (!blob) return 'the tarball is missing from storage';
  const matches = await streamMatchesDist(blob.stream, record.dist);
  return matches === true ? undefined : 'the tarball in storage does not match dist.integrity (changed after publish)';
}
