import { tarballFileName, type PackageDocument, type VersionRecord } from '@pkg/protocol';

/** The two shapes of `GET /<name>`: npm's full document and the abbreviated install form. */
export type DocumentForm = 'full' | 'abbreviated';

/**
 * Path of a version's tarball below the tarball base URL. Stored documents keep this relative
 * form so that the public URL (and a CDN in front of it) can change without rewriting data.
 */
export function tarballPath(name: string, version: string): string {
  return `${name}/-/${tarballFileName(name, version)}`;
}

/** Fields of a version record that installers need (npm's "corgi" form), plus the engine ones. */
const INSTALL_FIELDS = [
  'name',
  'version',
  'deprecated',
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bundleDependencies',
  'bundledDependencies',
  'acceptDependencies',
  'bin',
  'directories',
  'engines',
  'os',
  'cpu',
  'libc',
  'dist',
  '_hasShrinkwrap',
  'hasInstallScript',
  'unity',
  'unityRelease',
  'godot',
  'godotMax',
  'unreal',
  'unrealMax',
] as const;

/** Where a version published here with provenance has its attestations, relative to the registry. */
export function attestationsPath(name: string, version: string): string {
  return `-/npm/v1/attestations/${name}@${version}`;
}

/** A version record as clients see it: `dist.tarball` (and a local `dist.attestations.url`) made absolute. */
export function renderVersion(record: VersionRecord, tarballBaseUrl: string): VersionRecord {
  const dist = { ...record.dist, tarball: `${tarballBaseUrl}/${tarballPath(record.name, record.version)}` };
  const attestations = record.dist.attestations as { url?: unknown } | undefined;
  // An upstream's attestations (absolute) stay as they came.
  if (typeof attestations?.url === 'string' && !/^https?:/i.test(attestations.url)) {
    dist.attestations = { ...attestations, url: `${tarballBaseUrl}/${attestations.url}` };
  }
  return { ...record, dist };
}

/** The full package document as served, with absolute tarball URLs. */
export function renderFull(doc: PackageDocument, tarballBaseUrl: string): PackageDocument {
  const versions: Record<string, VersionRecord> = {};
  for (const [version, record] of Object.entries(doc.versions)) versions[version] = renderVersion(record, tarballBaseUrl);
  return { ...doc, versions };
}

export interface AbbreviatedDocument {
  name: string;
  modified: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, Partial<VersionRecord>>;
}

/** The abbreviated document (`application/vnd.npm.install-v1+json`). */
export function renderAbbreviated(doc: PackageDocument, tarballBaseUrl: string): AbbreviatedDocument {
  const versions: Record<string, Partial<VersionRecord>> = {};
  for (const [version, record] of Object.entries(doc.versions)) {
    const rendered = renderVersion(record, tarballBaseUrl);
    const slim: Record<string, unknown> = {};
    for (const field of INSTALL_FIELDS) {
      if (rendered[field] !== undefined) slim[field] = rendered[field];
    }
    versions[version] = slim;
  }
  return {
    name: doc.name,
    modified: doc.time.modified ?? doc.time.created ?? new Date(0).toISOString(),
    'dist-tags': doc['dist-tags'],
    versions,
  };
}
