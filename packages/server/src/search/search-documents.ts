/**
 * The two shapes search serves, built from a package's search fields when it is indexed, so
 * a search or `/-/all` never parses a whole package document.
 */
import type { SearchObject } from '@pkg/protocol';
import { deriveSearchFields, type SearchFields } from './search-fields.js';
import type { IndexablePackage } from './search-types.js';

/**
 * The `package` object of a search result: SPEC.md's fields in npm's current shape, plus what
 * the Unity Editor reads (`displayName`, `time.modified`, as Verdaccio serves them).
 */
export function searchPackageObject(fields: SearchFields): SearchObject['package'] {
  return {
    name: fields.name,
    version: fields.version,
    description: fields.description,
    keywords: fields.keywords,
    author: fields.author,
    date: fields.date,
    ...(fields.displayName !== undefined ? { displayName: fields.displayName } : {}),
    ...(fields.license !== undefined ? { license: fields.license } : {}),
    links: fields.links,
    ...(fields.publisher ? { publisher: fields.publisher } : {}),
    maintainers: fields.maintainers,
    time: { modified: fields.modified },
    engines: fields.engines,
  };
}

/** A `/-/all` entry: the package with its latest version only, as npm's old `/-/all` had it. */
export function allPackagesSummary(fields: SearchFields): Record<string, unknown> {
  return {
    name: fields.name,
    ...(fields.displayName !== undefined ? { displayName: fields.displayName } : {}),
    description: fields.description,
    'dist-tags': fields.distTags,
    versions: { [fields.version]: 'latest' },
    time: { modified: fields.modified },
    keywords: fields.keywords,
    ...(fields.authorPerson ? { author: fields.authorPerson } : {}),
    maintainers: fields.maintainers.map((m) => ({ name: m.username, email: m.email })),
    ...(fields.license !== undefined ? { license: fields.license } : {}),
    ...(fields.links.homepage ? { homepage: fields.links.homepage } : {}),
    ...(fields.links.repository ? { repository: { type: 'git', url: fields.links.repository } } : {}),
    ...(fields.links.bugs ? { bugs: { url: fields.links.bugs } } : {}),
  };
}

/**
 * Both shapes of a stored package, serialized as the index keeps them; null when it is not
 * searchable. Index migrations use it to rewrite the shapes of packages indexed by an older
 * release, when a release adds to them (as `engines` was added).
 */
export function serializedSearchDocuments(pkg: IndexablePackage): { packageJson: string; summaryJson: string } | null {
  const fields = deriveSearchFields(pkg);
  if (fields === null) return null;
  return { packageJson: JSON.stringify(searchPackageObject(fields)), summaryJson: JSON.stringify(allPackagesSummary(fields)) };
}
