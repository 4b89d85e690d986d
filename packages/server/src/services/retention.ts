import semver from 'semver';
import type { PackageDocument } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import { blobKeysOfVersion } from '../storage/blob-keys.js';
import type { StoredPackage, TenantId } from '../storage/ports.js';
import { mirrorLatestFields, repairDistTags } from './package-fields.js';
import { nextRevision } from './revisions.js';
import type { RetentionRules } from '../config/retention-rules.js';

export type { RetentionRules };

export interface RetentionRemoval {
  tenant: TenantId;
  name: string;
  version: string;
  /** Which rule removed it. */
  reason: 'beyond the newest pre-releases kept' | 'older than the pre-release age limit';
}

export type RetentionServiceDeps = Pick<ServerDeps, 'packages' | 'blobs' | 'bus' | 'now' | 'uplinkCache'>;

/**
 * Retention of pre-releases: removes, from every package of a registry, the pre-release
 * versions the rules no longer keep, never a version a dist-tag names (and so never the
 * `latest`), never a release, never a package cached from an uplink. Removal is an unpublish of
 * those versions (their numbers stay used, as npm's are). Runs only when an administrator asks
 * (`pkg-registry storage retain`, or the schedule the operator enables).
 */
export class RetentionService {
  readonly #deps: RetentionServiceDeps;

  constructor(deps: RetentionServiceDeps) {
    this.#deps = deps;
  }

  /** What the rules would remove now, without changing anything. */
  async plan(tenant: TenantId, rules: RetentionRules): Promise<RetentionRemoval[]> {
    const removals: RetentionRemoval[] = [];
    for (const name of await this.#deps.packages.listPackageNames(tenant)) {
      // A package cached from an uplink mirrors another registry: its versions are not ours to drop.
      if (await this.#deps.uplinkCache.get(tenant, name)) continue;
      const stored = await this.#deps.packages.package(tenant, name).read();
      if (stored) removals.push(...this.#removalsOf(tenant, name, stored, rules));
    }
    return removals;
  }

  /**
   * Removes what the rules no longer keep. Each package is planned again inside its own write:
   * a version tagged or published meanwhile is judged as it is then. The registry's storage
   * usage (quotas, metrics) falls in the same write. `onRemoved` is told of each removal once
   * it is committed: the one place where an audit log records retention removals.
   */
  async apply(
    tenant: TenantId,
    rules: RetentionRules,
    onRemoved: (removal: RetentionRemoval) => void = () => undefined,
  ): Promise<RetentionRemoval[]> {
    const done: RetentionRemoval[] = [];
    for (const name of await this.#deps.packages.listPackageNames(tenant)) {
      if (await this.#deps.uplinkCache.get(tenant, name)) continue;
      let removals: RetentionRemoval[] = [];
      await this.#deps.packages.package(tenant, name).update((current) => {
        removals = current ? this.#removalsOf(tenant, name, current, rules) : [];
        if (removals.length === 0) return { next: null, result: undefined };
        return {
          next: withoutVersions(
            current!,
            removals.map((r) => r.version),
            this.#deps.now(),
          ),
          result: undefined,
        };
      });
      if (removals.length === 0) continue;
      await this.#deps.bus.publish(tenant, name);
      // After the commit, as an unpublish: a crash in between leaves orphans that collection removes.
      for (const removal of removals) {
        for (const key of blobKeysOfVersion(tenant, name, removal.version)) await this.#deps.blobs.delete(key);
        done.push(removal);
        onRemoved(removal);
      }
    }
    return done;
  }

  #removalsOf(tenant: TenantId, name: string, stored: StoredPackage, rules: RetentionRules): RetentionRemoval[] {
    if (stored.unpublished) return [];
    const doc = stored.document;
    const versions = Object.keys(doc.versions);
    const tagged = new Set(Object.values(doc['dist-tags']));
    const prereleases = versions.filter((v) => semver.valid(v) && semver.prerelease(v) !== null).sort(semver.rcompare);
    const now = this.#deps.now().getTime();
    const removals: RetentionRemoval[] = [];
    prereleases.forEach((version, index) => {
      if (tagged.has(version)) return;
      if (rules.keepPrereleases !== undefined && index >= rules.keepPrereleases) {
        removals.push({ tenant, name, version, reason: 'beyond the newest pre-releases kept' });
        return;
      }
      const published = Date.parse(doc.time[version] ?? '');
      if (
        rules.prereleaseMaxAgeDays !== undefined &&
        Number.isFinite(published) &&
        now - published > rules.prereleaseMaxAgeDays * 86_400_000
      ) {
        removals.push({ tenant, name, version, reason: 'older than the pre-release age limit' });
      }
    });
    return removals;
  }
}

function withoutVersions(stored: StoredPackage, removed: string[], now: Date): StoredPackage {
  const versions = { ...stored.document.versions };
  for (const version of removed) delete versions[version];
  let doc: PackageDocument = { ...stored.document, versions };
  doc = { ...doc, 'dist-tags': repairDistTags(doc) };
  doc = mirrorLatestFields(doc);
  doc = { ...doc, time: { ...doc.time, modified: now.toISOString() } };
  doc._rev = nextRevision(stored.document._rev, doc);
  return { ...stored, document: doc };
}
