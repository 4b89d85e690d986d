import type { Readable } from 'node:stream';
import { blobKeyFor, sigstoreKeyFor } from '../storage/blob-keys.js';
import { measureVersions } from '../storage/storage-usage.js';
import {
  GLOBAL_TENANT,
  type AdvisoryStore,
  type AuditLogStore,
  type BlobStore,
  type DownloadCountStore,
  type PackageStore,
  type PackageWrite,
  PACKAGES_PER_WRITE,
  type AccountStores,
  type SearchIndex,
  type SigningKeyStore,
  type StoredPackage,
  type TenantId,
  type WebhookStore,
} from '../storage/ports.js';
import { DistCheck, streamMatchesDist } from '../services/integrity.js';
import type { TeamStore } from '../storage/team-store.js';

export interface RegistryStorage {
  registry: AccountStores;
  packages: PackageStore;
  blobs: BlobStore;
  downloadCounts: DownloadCountStore;
  search: SearchIndex;
  signingKeys: SigningKeyStore;
  teams: TeamStore;
  advisories: AdvisoryStore;
  audit: AuditLogStore;
  webhooks: WebhookStore;
}

export interface CopyReport {
  tenants: number;
  users: number;
  tokens: number;
  /** Signing keys (a copied signature must verify with the same key). */
  signingKeys: number;
  /** Teams, with their members and namespaces. */
  teams: number;
  /** Security advisories, withdrawn ones too. */
  advisories: number;
  /** Audit log entries, with their ids and times. */
  auditEntries: number;
  /** Webhooks, with their secrets (a hook removed from the source since a first run is removed from the target). */
  webhooks: number;
  /** Deliveries of the webhooks (their log), pending ones included: the target sends those. */
  webhookDeliveries: number;
  packages: number;
  /** Download counts (one per package, version and day), set to the source's values. */
  downloadCounts: number;
  tarballsCopied: number;
  /** Already in the target with the right bytes (a re-run). */
  tarballsPresent: number;
  /** What could not be copied; a package with a problem is left out of the target whole. */
  problems: string[];
}

/**
 * Copies a whole registry between storages of any kind (SQLite/PostgreSQL, files/S3): tenants,
 * users, tokens, signing keys, teams, advisories, the audit log, webhooks with their deliveries, packages
 * (unpublished ones too: their versions must stay unusable), every provenance bundle, every tarball and the
 * download counts, each tarball checked against its version's integrity before and after the copy. Tarballs
 * are written before the package that references them, as publish does. Re-running brings the
 * target up to date and copies only tarballs it lacks.
 */
export async function copyRegistry(
  from: RegistryStorage,
  to: RegistryStorage,
  onProgress: (line: string) => void = () => undefined,
  now = new Date(),
): Promise<CopyReport> {
  const report: CopyReport = {
    tenants: 0,
    users: 0,
    tokens: 0,
    signingKeys: 0,
    teams: 0,
    advisories: 0,
    auditEntries: 0,
    webhooks: 0,
    webhookDeliveries: 0,
    packages: 0,
    downloadCounts: 0,
    tarballsCopied: 0,
    tarballsPresent: 0,
    problems: [],
  };
  const tenants: TenantId[] = [GLOBAL_TENANT];
  for (const tenant of await from.registry.tenants.list()) {
    if (!(await to.registry.tenants.create(tenant))) await to.registry.tenants.updateSettings(tenant.name, tenant.settings);
    tenants.push(tenant.name);
    report.tenants++;
  }
  for (const tenant of tenants) {
    const label = tenant === GLOBAL_TENANT ? 'global registry' : `tenant ${tenant}`;
    for (const user of await from.registry.users.list(tenant)) {
      if (!(await to.registry.users.create(tenant, user))) {
        const { name, ...fields } = user;
        await to.registry.users.update(tenant, name, fields);
      }
      report.users++;
    }
    for (const token of await from.registry.tokens.list(tenant)) {
      if (!(await to.registry.tokens.get(tenant, token.hash))) await to.registry.tokens.create(tenant, token);
      report.tokens++;
    }
    for (const key of await from.signingKeys.list(tenant)) {
      if (await to.signingKeys.copy(tenant, key)) report.signingKeys++;
    }
    if (await from.signingKeys.backfilled(tenant)) await to.signingKeys.markBackfilled(tenant, now.toISOString());
    for (const team of await from.teams.list(tenant)) {
      // A re-run adds what the target lacks; a namespace the target gave another team stays there.
      await to.teams.create(tenant, team.name, team.createdAt, team.members);
      for (const member of team.members) await to.teams.addMember(tenant, team.name, member);
      for (const namespace of team.namespaces) await to.teams.claim(tenant, team.name, namespace);
      report.teams++;
    }
    const counted = { ...report };
    await copyChangeRecords(from, to, tenant, report);
    const names = await from.packages.listPackageNames(tenant, { includeUnpublished: true });
    // PACKAGES_PER_WRITE packages at a time: read in one read, each one's blobs copied, then
    // written in one write. A package is never stored before the tarballs it references, and a
    // registry of many packages is not a read and a transaction per package.
    for (let i = 0; i < names.length; i += PACKAGES_PER_WRITE) {
      const writes: PackageWrite[] = [];
      for (const [name, pkg] of await from.packages.readPackages(tenant, names.slice(i, i + PACKAGES_PER_WRITE))) {
        const next = await copiedPackage(from, to, tenant, name, pkg, report);
        if (next) writes.push({ name, next });
      }
      await to.packages.writePackages(tenant, writes);
      report.packages += writes.length;
    }
    const counts = await from.downloadCounts.list(tenant);
    await to.downloadCounts.replace(counts);
    report.downloadCounts += counts.length;
    // Search shows downloads and scores them: recompute them from the copied counts.
    await to.search.refreshScores(tenant, null, now);
    onProgress(
      `${label}: ${names.length} packages, ${report.advisories - counted.advisories} advisories, ` +
        `${report.auditEntries - counted.auditEntries} audit entries, ${report.webhooks - counted.webhooks} webhooks`,
    );
  }
  return report;
}

/** Audit entries read per query: the log is copied a page at a time, in constant memory. */
const AUDIT_PAGE = 500;

/**
 * The records of what happened in a registry: its advisories, its audit log (ids and times kept)
 * and its webhooks with their secrets and deliveries (status and attempts kept).
 */
async function copyChangeRecords(
  from: RegistryStorage,
  to: RegistryStorage,
  tenant: TenantId,
  report: CopyReport,
): Promise<void> {
  for (const advisory of await from.advisories.listAll(tenant)) {
    await to.advisories.put(tenant, advisory);
    report.advisories++;
  }
  // Newest first, each page older than the last: entries appended meanwhile are left to a re-run.
  let page = await from.audit.query(tenant, { limit: AUDIT_PAGE });
  while (page.length > 0) {
    await to.audit.copyEntries(tenant, page);
    report.auditEntries += page.length;
    page = await from.audit.query(tenant, { limit: AUDIT_PAGE, before: page.at(-1)!.id });
  }
  const hooks = await from.webhooks.listWebhooks(tenant);
  const present = new Set((await to.webhooks.listWebhooks(tenant)).map((hook) => hook.id));
  for (const hook of hooks) {
    if (present.has(hook.id)) await to.webhooks.setWebhookSecrets(tenant, hook.id, hook.secrets);
    else await to.webhooks.addWebhook(tenant, hook);
    // A delivery's state is set to the source's: one the source sent since a first run is not sent again.
    for (const delivery of await from.webhooks.listDeliveries(tenant, hook.id, Number.MAX_SAFE_INTEGER)) {
      if (await to.webhooks.putDelivery(tenant, delivery)) report.webhookDeliveries++;
    }
    report.webhooks++;
  }
  // A hook removed from the source since a first run must not go on posting from the target.
  const kept = new Set(hooks.map((hook) => hook.id));
  for (const id of present) if (!kept.has(id)) await to.webhooks.removeWebhook(tenant, id);
}

/**
 * The package as the target stores it, after its blobs are copied (the target's storage usage
 * learns their sizes with the document); undefined, with the problem in the report, when one is
 * missing or does not match.
 */
async function copiedPackage(
  from: RegistryStorage,
  to: RegistryStorage,
  tenant: TenantId,
  name: string,
  pkg: StoredPackage,
  report: CopyReport,
): Promise<StoredPackage | undefined> {
  if (!(await copyPackageBlobs(from.blobs, to.blobs, tenant, name, pkg, report))) return undefined;
  const added = await measureVersions(to.blobs, tenant, name, pkg, pkg.unpublished ? [] : Object.keys(pkg.document.versions));
  const { document, publishedVersions, unpublished } = pkg;
  return { document, publishedVersions, unpublished, usage: { added } };
}

/**
 * Copies the tarballs and provenance bundles of a package's versions, each tarball checked
 * against its version's integrity on the way and read back; false (with the problem in the
 * report) when one is missing or does not match.
 */
export async function copyPackageBlobs(
  fromBlobs: BlobStore,
  toBlobs: BlobStore,
  tenant: TenantId,
  name: string,
  pkg: StoredPackage,
  report: Pick<CopyReport, 'tarballsCopied' | 'tarballsPresent' | 'problems'>,
): Promise<boolean> {
  const from = { blobs: fromBlobs };
  const to = { blobs: toBlobs };
  const where = tenant === GLOBAL_TENANT ? name : `${tenant}/${name}`;
  for (const [version, record] of Object.entries(pkg.document.versions)) {
    const key = blobKeyFor(tenant, name, version);
    const present = await to.blobs.get(key);
    if (present && (await streamMatchesDist(present.stream, record.dist)) === true) {
      report.tarballsPresent++;
      continue;
    }
    const source = await from.blobs.get(key);
    // A package cached from an uplink (absolute tarball URLs) holds only the tarballs someone
    // downloaded; the others are fetched on first download, on the target too.
    if (!source && /^https?:\/\//i.test(record.dist.tarball)) continue;
    if (!source) {
      report.problems.push(`${where}@${version}: the tarball is missing from the source`);
      return false;
    }
    // Streamed into an upload and checked on the way: committed only when it matches, so a
    // tarball of any size is copied in constant memory.
    const upload = await to.blobs.upload(key);
    let verdict: boolean | undefined;
    let committed = false;
    try {
      const check = new DistCheck(record.dist);
      for await (const chunk of source.stream) {
        const bytes = chunk as Buffer;
        check.update(bytes);
        await upload.write(bytes);
      }
      verdict = check.verdict();
      if (verdict === true) {
        await upload.commit();
        committed = true;
      }
    } finally {
      if (!committed) await upload.abort();
    }
    if (verdict !== true) {
      report.problems.push(
        `${where}@${version}: the source tarball ${verdict === false ? 'does not match its integrity' : 'has no integrity to check'}`,
      );
      return false;
    }
    const written = await to.blobs.get(key);
    if (!written || (await streamMatchesDist(written.stream, record.dist)) !== true) {
      report.problems.push(`${where}@${version}: the tarball read back from the target does not match its integrity`);
      return false;
    }
    report.tarballsCopied++;
  }
  for (const version of Object.keys(pkg.document.versions)) {
    // A provenance bundle kept from publish, when there is one: copied byte for byte.
    const key = sigstoreKeyFor(tenant, name, version);
    const source = await from.blobs.get(key);
    if (!source) continue;
    const data = await readAll(source.stream);
    const present = await to.blobs.get(key);
    if (present && (await readAll(present.stream)).equals(data)) continue;
    await to.blobs.put(key, data);
  }
  return true;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
