import { sortVersions, type PackageDocument, type Person, type VersionRecord } from '@pkg/protocol';
import { safeHttpUrl } from './html.js';

/** Small readings of a package document that several pages need. */

/** The version `latest` points at, else the highest version; undefined when none is left. */
export function latestVersionOf(doc: PackageDocument): string | undefined {
  const tagged = doc['dist-tags']?.latest;
  if (tagged && doc.versions?.[tagged]) return tagged;
  return sortVersions(Object.keys(doc.versions ?? {})).at(-1);
}

/** A person's display name: `Jane Doe <jane@x.io> (https://x.io)` and `{name}` both give `Jane Doe`. */
export function personName(value: unknown): string {
  if (typeof value === 'string') return value.replace(/<[^>]*>|\([^)]*\)/g, '').trim();
  if (value && typeof value === 'object' && typeof (value as Person).name === 'string') return (value as Person).name.trim();
  return '';
}

export function keywordsOf(record: VersionRecord | undefined, doc: PackageDocument): string[] {
  const list = record?.keywords ?? doc.keywords;
  return Array.isArray(list) ? list.filter((k): k is string => typeof k === 'string' && k.length > 0).slice(0, 50) : [];
}

/** A browsable URL of a `repository` field (`git+https://…/x.git`, `{type, url}`), or undefined. */
export function repositoryUrl(repository: unknown): string | undefined {
  const raw = typeof repository === 'string' ? repository : (repository as { url?: unknown } | undefined)?.url;
  if (typeof raw !== 'string') return undefined;
  const cleaned = raw
    .replace(/^git\+/, '')
    .replace(/^git:\/\//, 'https://')
    .replace(/\.git$/, '');
  return safeHttpUrl(cleaned);
}

/** `repository.directory` (a package inside a monorepo), without leading or trailing slashes; '' when none. */
export function repositoryDirectory(repository: unknown): string {
  const directory = (repository as { directory?: unknown } | undefined)?.directory;
  if (typeof directory !== 'string') return '';
  const cleaned = directory.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
  // Only plain relative folders: nothing that climbs out of the repository.
  return cleaned.split('/').some((part) => part === '..' || part === '.' || part === '') ? '' : cleaned;
}

/** Where to report issues: `bugs` as a URL string, `{url}`, or `{email}` (a mailto link). */
export function bugsUrl(bugs: unknown): string | undefined {
  if (typeof bugs === 'string') return safeHttpUrl(bugs);
  if (!bugs || typeof bugs !== 'object') return undefined;
  const { url, email } = bugs as { url?: unknown; email?: unknown };
  const http = safeHttpUrl(url);
  if (http) return http;
  return typeof email === 'string' && /^[^\s@<>"]+@[^\s@<>"]+$/.test(email) ? `mailto:${email}` : undefined;
}

/** ISO date part (`2024-05-01`) of a timestamp, or '' when it is not one. */
export function isoDate(value: string | undefined): string {
  if (!value) return '';
  const time = Date.parse(value);
  return Number.isNaN(time) ? '' : new Date(time).toISOString().slice(0, 10);
}
