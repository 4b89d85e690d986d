import {
  supportedEngines,
  type PackageDocument,
  type SearchObject,
  type SearchResponse,
  type SupportedEngine,
} from '@pkg/protocol';
import { heading, muted, type CommandResult, type TextLine } from './reporter.js';
import { personText, plural, SEPARATOR, supportedEngineText } from './format.js';

/** What `--detail` adds per result, read from the package's latest version. */
export interface PackageDetail {
  license: string;
  repository: string;
  dependencies: Record<string, string>;
  /** The engines the version supports (as the registry reads its fields). */
  engines: SupportedEngine[];
}

/** One entry of `search --json` (shared/SPEC.md "Client search result"). */
export interface SearchResultEntry {
  name: string;
  version: string;
  description: string;
  author: string;
  keywords: string[];
  downloads: number;
  lastUpdated: string;
  license?: string;
  repository?: string;
  dependencies?: Record<string, string>;
  engines?: SupportedEngine[];
}

export function searchEntry(object: SearchObject, detail?: PackageDetail): SearchResultEntry {
  const pkg = object.package;
  const downloads = (object as Partial<SearchObject>).downloads;
  return {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description ?? '',
    author: personText(pkg.author),
    keywords: Array.isArray(pkg.keywords) ? pkg.keywords : [],
    // The registry counts tarball downloads; the monthly figure is the one reported.
    downloads: typeof downloads?.monthly === 'number' ? downloads.monthly : 0,
    lastUpdated: (object as Partial<SearchObject>).updated ?? pkg.date ?? '',
    ...(detail
      ? { license: detail.license, repository: detail.repository, dependencies: detail.dependencies, engines: detail.engines }
      : {}),
  };
}

/** License, repository and dependencies of a package document's latest version. */
export function packageDetail(doc: PackageDocument, version: string): PackageDetail {
  const record = doc.versions?.[version] ?? doc.versions?.[doc['dist-tags']?.latest ?? ''];
  const license = record?.license ?? doc.license;
  return {
    license: typeof license === 'string' ? license : '',
    repository: repositoryUrl(record?.repository ?? doc.repository),
    dependencies: record?.dependencies ?? {},
    engines: record ? supportedEngines(record) : [],
  };
}

function repositoryUrl(repository: unknown): string {
  const raw =
    typeof repository === 'string'
      ? repository
      : typeof (repository as { url?: unknown })?.url === 'string'
        ? (repository as { url: string }).url
        : '';
  return raw.replace(/^git\+/, '');
}

export interface SearchReportInput {
  term: string;
  response: SearchResponse;
  limit: number;
  /** Present with --detail: the details of each shown result, by name. */
  details?: Map<string, PackageDetail>;
  /** The registry of each result (aligned with `response.objects`), when several were searched. */
  sources?: string[];
}

/** The three outputs of `pkg search`: default, --detail (human) and --json. */
export function searchReport({ term, response, limit, details, sources }: SearchReportInput): CommandResult {
  const shown = response.objects.slice(0, limit);
  const total = Math.max(response.total ?? 0, response.objects.length);
  const entries = shown.map((object, i) => ({
    ...searchEntry(object, details?.get(object.package.name)),
    ...(sources ? { registry: sources[i]! } : {}),
  }));
  const more = total - entries.length;

  const text: TextLine[] = [
    heading('Search Results'),
    muted(SEPARATOR),
    `Search term: ${term}`,
    `Found ${plural(total, 'package')}:`,
  ];
  for (const entry of entries) {
    text.push('', `${entry.name} (${entry.version})`);
    if ('registry' in entry) text.push(`  Registry: ${entry.registry}`);
    if (details) {
      text.push(
        `  Description: ${entry.description || '(none)'}`,
        `  Author: ${entry.author || '(unknown)'}`,
        `  License: ${entry.license || '(none)'}`,
        `  Keywords: ${entry.keywords.join(', ') || '(none)'}`,
        `  Repository: ${entry.repository || '(none)'}`,
        `  Downloads: ${entry.downloads} in the last 30 days`,
        `  Last Updated: ${entry.lastUpdated ? entry.lastUpdated.slice(0, 10) : '(unknown)'}`,
        `  Engines: ${(entry.engines ?? []).map(supportedEngineText).join(', ') || '(unknown)'}`,
        '  Dependencies:',
      );
      const deps = Object.entries(entry.dependencies ?? {});
      if (deps.length === 0) text.push('    (none)');
      for (const [name, version] of deps) text.push(`    ${name}@${version}`);
    } else {
      text.push(
        `  ${entry.description || '(no description)'}`,
        `  Author: ${entry.author || '(unknown)'}`,
        `  Keywords: ${entry.keywords.join(', ') || '(none)'}`,
      );
    }
  }
  if (more > 0) text.push('', `... and ${more} more ${more === 1 ? 'package' : 'packages'}`);

  return { json: { query: term, total, results: entries }, text };
}
