import { createHash, type Hash } from 'node:crypto';
import semver from 'semver';
import type { PackageDocument, Person, VersionRecord } from '@pkg/protocol';

/**
 * An upstream's package document as this registry stores it: only what the npm protocol
 * defines, in the types it defines, and only versions that can be verified (a valid semver
 * version with an integrity or shasum and a tarball URL). Each version record keeps the
 * upstream's `dist.tarball` as an absolute URL (a relative one resolved against `documentUrl`,
 * where the document came from), which is where its tarball is fetched from; rendering
 * replaces it with this registry's URL, and an absolute URL is also what tells a cached package
 * from a local one (local documents store relative paths). Returns the problem instead when the
 * document is not a package document of `name`.
 */
export function upstreamDocument(name: string, raw: unknown, documentUrl: string): PackageDocument | string {
  if (!isObject(raw)) return 'the document is not a JSON object';
  if (raw.name !== name) return `the document is of '${String(raw.name).slice(0, 80)}', not '${name}'`;
  const versions: Record<string, VersionRecord> = {};
  for (const [version, record] of Object.entries(isObject(raw.versions) ? raw.versions : {})) {
    const verified = upstreamVersion(name, version, record, documentUrl);
    if (verified) versions[version] = verified;
  }
  const time: Record<string, string> = {};
  for (const [key, value] of Object.entries(isObject(raw.time) ? raw.time : {})) {
    if (typeof value === 'string' && (key === 'created' || key === 'modified' || Object.hasOwn(versions, key))) time[key] = value;
  }
  const doc: PackageDocument = {
    _id: name,
    _rev: '',
    name,
    'dist-tags': distTags(raw['dist-tags'], versions),
    versions,
    time,
    maintainers: Array.isArray(raw.maintainers) ? raw.maintainers.filter(isPerson) : [],
  };
  for (const field of ['description', 'readme', 'readmeFilename', 'license', 'homepage'] as const) {
    if (typeof raw[field] === 'string') doc[field] = raw[field];
  }
  if (Array.isArray(raw.keywords)) doc.keywords = raw.keywords.filter((k): k is string => typeof k === 'string');
  if (typeof raw.author === 'string' || isPerson(raw.author)) doc.author = raw.author;
  for (const field of ['repository', 'bugs'] as const) {
    if (typeof raw[field] === 'string' || isObject(raw[field])) doc[field] = raw[field];
  }
  return doc;
}

function upstreamVersion(name: string, version: string, record: unknown, documentUrl: string): VersionRecord | undefined {
  if (semver.valid(version) !== version || !isObject(record) || !isObject(record.dist)) return undefined;
  const { integrity, shasum } = record.dist;
  const tarball = absoluteTarball(record.dist.tarball, documentUrl);
  if (tarball === undefined) return undefined;
  if (typeof integrity !== 'string' && typeof shasum !== 'string') return undefined;
  // The upstream's own bookkeeping (`_id`, `_npmUser`, …) stays; the key fields are made to agree.
  return { ...record, name, version, dist: { ...record.dist, tarball } } as unknown as VersionRecord;
}

/**
 * An http(s) URL of the tarball. npmjs and Verdaccio send absolute URLs, but a registry may send
 * a path (`/<name>/-/<file>.tgz`, as this one stores them): it is resolved like a link in the
 * document. Where it points does not matter here: tarballs are fetched from the uplink's origin only.
 */
function absoluteTarball(tarball: unknown, documentUrl: string): string | undefined {
  if (typeof tarball !== 'string' || tarball === '') return undefined;
  try {
    const url = new URL(tarball, documentUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function distTags(raw: unknown, versions: Record<string, VersionRecord>): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const [tag, version] of Object.entries(isObject(raw) ? raw : {})) {
    if (typeof version === 'string' && Object.hasOwn(versions, version)) tags[tag] = version;
  }
  return tags;
}

/**
 * The cached document after a fetch: the upstream's, except that versions already cached keep
 * their records (a cached version is immutable: its tarball may be in the blob store, and a
 * lockfile holds its integrity), and versions the upstream no longer lists stay (a build that
 * pinned one keeps working).
 */
export function mergeCached(cached: PackageDocument, fresh: PackageDocument): PackageDocument {
  const versions: Record<string, VersionRecord> = { ...cached.versions };
  for (const [version, record] of Object.entries(fresh.versions)) {
    if (!Object.hasOwn(versions, version)) versions[version] = record;
  }
  const time: Record<string, string> = { ...fresh.time };
  for (const version of Object.keys(cached.versions)) {
    const at = cached.time[version];
    if (at !== undefined) time[version] = at;
  }
  return { ...fresh, versions, time, 'dist-tags': distTags(fresh['dist-tags'], versions) };
}

/** Whether a stored document is a cached upstream copy (absolute tarball URLs), not a local package. */
export function isCachedCopy(doc: PackageDocument): boolean {
  for (const version in doc.versions) return /^https?:\/\//i.test(doc.versions[version]!.dist.tarball);
  return false;
}

/**
 * Whether `bytes` are the tarball a version record describes: every sha512/sha384/sha256/sha1
 * hash of its `integrity` that we can compute must match (at least one must be there), else its
 * `shasum`.
 */
export function matchesIntegrity(record: VersionRecord, bytes: Buffer): boolean {
  const check = integrityCheck(record);
  check.update(bytes);
  return check.matches();
}

/** Hashes a tarball as it arrives, then tells whether it is the one `record` describes (see matchesIntegrity). */
export interface IntegrityCheck {
  update(chunk: Buffer): void;
  matches(): boolean;
}

export function integrityCheck(record: VersionRecord): IntegrityCheck {
  const { integrity, shasum } = record.dist as { integrity?: unknown; shasum?: unknown };
  const expected: { hash: Hash; digest: string; encoding: 'base64' | 'hex' }[] = [];
  if (typeof integrity === 'string') {
    for (const entry of integrity.trim().split(/\s+/)) {
      const dash = entry.indexOf('-');
      const algorithm = entry.slice(0, dash);
      if (!['sha512', 'sha384', 'sha256', 'sha1'].includes(algorithm)) continue;
      expected.push({ hash: createHash(algorithm), digest: entry.slice(dash + 1).replace(/\?.*$/, ''), encoding: 'base64' });
    }
  }
  if (expected.length === 0 && typeof shasum === 'string') {
    expected.push({ hash: createHash('sha1'), digest: shasum.toLowerCase(), encoding: 'hex' });
  }
  return {
    update(chunk) {
      for (const { hash } of expected) hash.update(chunk);
    },
    matches() {
      return expected.length > 0 && expected.every(({ hash, digest, encoding }) => hash.digest(encoding) === digest);
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPerson(value: unknown): value is Person {
  return isObject(value) && typeof value.name === 'string';
}
