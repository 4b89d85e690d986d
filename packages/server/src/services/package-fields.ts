import semver from 'semver';
import type { PackageDocument } from '@pkg/protocol';

/** Top-level fields of a package document that mirror its `latest` version, as on npmjs.org. */
const LATEST_FIELDS = ['description', 'keywords', 'license', 'author', 'repository', 'homepage', 'bugs', 'displayName'] as const;

/** Copies the mirrored fields from the version `latest` points to (or clears them). */
export function mirrorLatestFields(doc: PackageDocument): PackageDocument {
  const latest = doc['dist-tags'].latest;
  const record = latest === undefined ? undefined : doc.versions[latest];
  const next: PackageDocument = { ...doc };
  for (const field of LATEST_FIELDS) {
    const value: unknown = record?.[field];
    if (value === undefined) delete next[field];
    else (next as Record<string, unknown>)[field] = value;
  }
  return next;
}

/**
 * The version `latest` falls back to when the version it named is gone: the highest release,
 * or the highest prerelease when there is no release.
 */
export function fallbackLatest(versions: Iterable<string>): string | undefined {
  const sorted = [...versions].filter((v) => semver.valid(v)).sort(semver.rcompare);
  return sorted.find((v) => semver.prerelease(v) === null) ?? sorted[0];
}

/** Removes the tags that point at versions no longer present and repairs `latest`. */
export function repairDistTags(doc: PackageDocument): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const [tag, version] of Object.entries(doc['dist-tags'])) {
    if (Object.hasOwn(doc.versions, version)) tags[tag] = version;
  }
  if (tags.latest === undefined) {
    const latest = fallbackLatest(Object.keys(doc.versions));
    if (latest !== undefined) tags.latest = latest;
  }
  return tags;
}
