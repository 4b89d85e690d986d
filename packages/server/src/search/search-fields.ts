/**
 * What search knows about a package, derived from its stored document by one pure function.
 * Every metadata driver (SQLite now, PostgreSQL later) indexes exactly these fields, so the
 * drivers can only differ in how they match and sort, never in what they match.
 */
import semver from 'semver';
import type { PackageDocument, Person, SearchPerson, SupportedEngine, VersionRecord } from '@pkg/protocol';
import { sortVersions, supportedEngines, unitySignatureOf } from '@pkg/protocol';
import { qualityScore } from './scoring.js';
import type { IndexablePackage } from './search-types.js';

/** Lowercased texts of the indexed columns; search terms are matched as substrings of these. */
export interface SearchTexts {
  name: string;
  displayName: string;
  /** Keywords joined by a space. */
  keywords: string;
  description: string;
  /** Author name and e-mail joined by a space. */
  author: string;
  /** Maintainer user names and e-mails joined by spaces (only the `maintainer:` qualifier looks here). */
  maintainers: string;
}

export interface SearchFields {
  name: string;
  /** The version search shows: the `latest` dist-tag, else the highest version. */
  version: string;
  description: string;
  keywords: string[];
  /** The author as one string, `Name <email>`, or '' when the package names none. */
  author: string;
  authorPerson?: Person;
  displayName?: string;
  license?: string;
  links: { homepage?: string; repository?: string; bugs?: string };
  publisher?: SearchPerson;
  maintainers: SearchPerson[];
  distTags: Record<string, string>;
  /** Publish time of `version` (ISO, milliseconds). */
  date: string;
  /** Last publish of any version (ISO). */
  updated: string;
  /** Last change of the document: publish, dist-tag, deprecation (ISO). */
  modified: string;
  /** Deprecation message of `version`, when it is deprecated. */
  deprecated?: string;
  /** `version` is below 1.0.0 or a prerelease. */
  unstable: boolean;
  /** Publish times (ms) of every version still published, oldest first. */
  releaseTimes: number[];
  /** Metadata completeness in [0, 1] (see scoring.ts). */
  quality: number;
  /** The engines `version` supports. */
  engines: SupportedEngine[];
  texts: SearchTexts;
}

/** The search fields of a stored package, or null when search must not show it (unpublished, no versions). */
export function deriveSearchFields(stored: IndexablePackage): SearchFields | null {
  if (stored.unpublished) return null;
  const doc = stored.document;
  const versions = Object.keys(doc.versions ?? {});
  if (versions.length === 0) return null;
  const version = pickShownVersion(doc, versions);
  const record = doc.versions[version]!;
  const time = doc.time ?? {};

  const description = stringOr(record.description, stringOr(doc.description, ''));
  const keywords = keywordsOf(record.keywords ?? doc.keywords);
  const author = personOf(record.author ?? doc.author);
  const displayName = nonEmpty(record.displayName);
  const maintainers = (Array.isArray(doc.maintainers) ? doc.maintainers : [])
    .map(personOf)
    .filter((p): p is Person => p !== undefined)
    .map((p) => ({ username: p.name, email: p.email ?? '' }));
  const npmUser = personOf(record._npmUser);
  const publisher = npmUser ? { username: npmUser.name, email: npmUser.email ?? '' } : maintainers[0];
  const license = licenseOf(record.license ?? doc.license);
  const links = linksOf(record, doc);
  const deprecated = typeof record.deprecated === 'string' && record.deprecated.length > 0 ? record.deprecated : undefined;

  const releaseTimes = versions
    .map((v) => Date.parse(time[v] ?? ''))
    .filter((t) => Number.isFinite(t))
    .sort((a, b) => a - b);
  const date = isoOr(time[version], time.modified, time.created);
  const updated = releaseTimes.length > 0 ? new Date(releaseTimes[releaseTimes.length - 1]!).toISOString() : date;
  const modified = isoOr(time.modified, updated);
  const readme = stringOr(doc.readme, stringOr(record.readme, ''));

  const authorString = author ? (author.email ? `${author.name} <${author.email}>` : author.name) : '';
  const fields: SearchFields = {
    name: doc.name,
    version,
    description,
    keywords,
    author: authorString,
    ...(author ? { authorPerson: author } : {}),
    ...(displayName !== undefined ? { displayName } : {}),
    ...(license !== undefined ? { license } : {}),
    links,
    ...(publisher ? { publisher } : {}),
    maintainers,
    distTags: { ...(doc['dist-tags'] ?? {}) },
    date,
    updated,
    modified,
    ...(deprecated !== undefined ? { deprecated } : {}),
    unstable: isUnstable(version),
    releaseTimes,
    engines: enginesOf(record),
    quality: qualityScore({
      description,
      name: doc.name,
      readme,
      license: license !== undefined,
      keywords: keywords.length,
      repository: links.repository !== undefined,
    }),
    texts: {
      name: doc.name.toLowerCase(),
      displayName: (displayName ?? '').toLowerCase(),
      keywords: keywords.join(' ').toLowerCase(),
      description: description.toLowerCase(),
      author: author ? `${author.name} ${author.email ?? ''}`.trim().toLowerCase() : '',
      maintainers: maintainers
        .map((m) => `${m.username} ${m.email}`.trim())
        .join(' ')
        .toLowerCase(),
    },
  };
  return fields;
}

/** The engines a version supports; Unity's entry says whether Unity's package signature is in it, and whose. */
function enginesOf(record: VersionRecord): SupportedEngine[] {
  const signature = unitySignatureOf(record);
  return supportedEngines(record).map((e) => (e.engine === 'unity' && signature !== undefined ? { ...e, signature } : e));
}

function pickShownVersion(doc: PackageDocument, versions: string[]): string {
  const latest = doc['dist-tags']?.latest;
  if (latest !== undefined && doc.versions[latest]) return latest;
  const sorted = sortVersions(versions);
  return sorted[sorted.length - 1] ?? versions[versions.length - 1]!;
}

function isUnstable(version: string): boolean {
  const parsed = semver.parse(version);
  return parsed === null || parsed.major === 0 || parsed.prerelease.length > 0;
}

/** `Name <email> (url)` or `{name, email}` as a person; undefined when there is no name. */
export function personOf(value: unknown): Person | undefined {
  if (typeof value === 'string') {
    const match = /^\s*([^<(]*?)\s*(?:<([^>]*)>)?\s*(?:\(([^)]*)\))?\s*$/.exec(value);
    const name = (match?.[1] ?? value).trim();
    const email = match?.[2]?.trim();
    if (name.length === 0 && !email) return undefined;
    return { name: name.length > 0 ? name : (email ?? ''), ...(email ? { email } : {}) };
  }
  if (typeof value === 'object' && value !== null) {
    const { name, email } = value as { name?: unknown; email?: unknown };
    const mail = typeof email === 'string' && email.trim().length > 0 ? email.trim() : undefined;
    if (typeof name === 'string' && name.trim().length > 0) return { name: name.trim(), ...(mail ? { email: mail } : {}) };
    if (mail) return { name: mail, email: mail };
  }
  return undefined;
}

function keywordsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,]+/) : [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of list) {
    if (typeof item !== 'string') continue;
    const keyword = item.trim();
    if (keyword.length === 0 || seen.has(keyword.toLowerCase())) continue;
    seen.add(keyword.toLowerCase());
    out.push(keyword);
  }
  return out;
}

function licenseOf(value: unknown): string | undefined {
  if (typeof value === 'string') return nonEmpty(value);
  if (typeof value === 'object' && value !== null) return nonEmpty((value as { type?: unknown }).type);
  return undefined;
}

function linksOf(record: VersionRecord, doc: PackageDocument): SearchFields['links'] {
  const links: SearchFields['links'] = {};
  const homepage = nonEmpty(record.homepage) ?? nonEmpty(doc.homepage);
  const repository = urlOf(record.repository ?? doc.repository);
  const bugs = urlOf(record.bugs ?? doc.bugs);
  if (homepage) links.homepage = homepage;
  if (repository) links.repository = repository.replace(/^git\+/, '').replace(/\.git$/, '');
  if (bugs) links.bugs = bugs;
  return links;
}

function urlOf(value: unknown): string | undefined {
  if (typeof value === 'string') return nonEmpty(value);
  if (typeof value === 'object' && value !== null) return nonEmpty((value as { url?: unknown }).url);
  return undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function isoOr(...candidates: (string | undefined)[]): string {
  for (const candidate of candidates) {
    const ms = Date.parse(candidate ?? '');
    if (Number.isFinite(ms)) return new Date(ms).toISOString();
  }
  return new Date(0).toISOString();
}

/** What `maintainer:` compares with: every maintainer's user name and e-mail, lowercased. */
export function maintainerKeys(fields: Pick<SearchFields, 'maintainers'>): string[] {
  const keys: string[] = [];
  for (const m of fields.maintainers) {
    if (m.username) keys.push(m.username.toLowerCase());
    if (m.email) keys.push(m.email.toLowerCase());
  }
  return keys;
}
