import {
  maxSatisfying,
  sortVersions,
  supportedEngines,
  type PackageDocument,
  type SupportedEngine,
  type VersionRecord,
} from '@pkg/protocol';
import type { PackageReadService } from '../services/package-reads.js';
import type { StoredPackage, TenantId } from '../storage/ports.js';
import { installSnippet, type InstallSnippet } from './install-snippet.js';
import { keywordsOf, latestVersionOf, personName, repositoryUrl } from './package-facts.js';
import { safeHttpUrl } from './html.js';

export interface VersionRow {
  version: string;
  /** ISO time of publication ('' when unknown). */
  published: string;
  tags: string[];
  deprecated: boolean;
}

export interface DependencyRow {
  name: string;
  range: string;
  /** Served by this registry (the page links to it). */
  hosted: boolean;
}

/** Everything the package page shows, read from the stored document. */
export interface PackageView {
  name: string;
  displayName: string | undefined;
  description: string;
  version: string;
  latest: string;
  /** The viewed version's deprecation message. */
  deprecated: string | undefined;
  readme: string;
  versions: VersionRow[];
  distTags: [string, string][];
  dependencies: DependencyRow[];
  /** The engines the version supports, with the versions (Unity: `2021.3.0f1`; none named: Unity, any version). */
  engines: SupportedEngine[];
  license: string;
  maintainers: string[];
  author: string;
  keywords: string[];
  homepage: string | undefined;
  repository: string | undefined;
  published: string;
  install: InstallSnippet;
}

/** Most packages a manifest snippet follows when collecting the scopes of dependencies. */
const MAX_SCOPE_WALK = 500;

/** Builds package pages' view models; dependencies are looked up in the same tenant. */
export class PackageViews {
  readonly #packages: PackageReadService;

  constructor(packages: PackageReadService) {
    this.#packages = packages;
  }

  /** The view of `name` at `version` (default: latest), or undefined when either does not exist. */
  async view(tenant: TenantId, baseUrl: string, name: string, version?: string): Promise<PackageView | undefined> {
    const stored = await this.#packages.stored(tenant, name);
    if (!stored || stored.unpublished) return undefined;
    const doc = stored.document;
    const latest = latestVersionOf(doc);
    const shown = version ?? latest;
    if (latest === undefined || shown === undefined) return undefined;
    const record = doc.versions[shown];
    if (!record) return undefined;

    const lookups = new Map<string, StoredPackage | undefined>([[name, stored]]);
    const lookup = async (dep: string) => {
      if (!lookups.has(dep)) lookups.set(dep, await this.#packages.stored(tenant, dep));
      const found = lookups.get(dep);
      return found && !found.unpublished && Object.keys(found.document.versions ?? {}).length > 0 ? found : undefined;
    };
    const dependencies: DependencyRow[] = [];
    for (const [dep, range] of Object.entries(record.dependencies ?? {})) {
      dependencies.push({ name: dep, range: String(range), hosted: (await lookup(dep)) !== undefined });
    }
    const scopes = await hostedClosure(record, lookup);
    const engines = supportedEngines(record);

    return {
      name,
      displayName: typeof record.displayName === 'string' ? record.displayName : undefined,
      description: String(record.description ?? doc.description ?? ''),
      version: shown,
      latest,
      deprecated: typeof record.deprecated === 'string' && record.deprecated.length > 0 ? record.deprecated : undefined,
      readme: readmeOf(record, doc),
      versions: versionRows(doc),
      distTags: Object.entries(doc['dist-tags'] ?? {}).sort(([a], [b]) =>
        a === 'latest' ? -1 : b === 'latest' ? 1 : a.localeCompare(b),
      ),
      dependencies,
      engines,
      license: typeof (record.license ?? doc.license) === 'string' ? String(record.license ?? doc.license) : '',
      maintainers: (doc.maintainers ?? []).map(personName).filter(Boolean),
      author: personName(record.author ?? doc.author),
      keywords: keywordsOf(record, doc),
      homepage: safeHttpUrl(record.homepage ?? doc.homepage),
      repository: repositoryUrl(record.repository ?? doc.repository),
      published: doc.time?.[shown] ?? '',
      install: installSnippet(baseUrl, name, shown, scopes, engines),
    };
  }
}

/** Names of every package this registry serves that `record` depends on, transitively. */
async function hostedClosure(
  record: VersionRecord,
  lookup: (name: string) => Promise<StoredPackage | undefined>,
): Promise<Set<string>> {
  const found = new Set<string>();
  const queue: VersionRecord[] = [record];
  while (queue.length > 0 && found.size < MAX_SCOPE_WALK) {
    const current = queue.shift()!;
    for (const [dep, range] of Object.entries(current.dependencies ?? {})) {
      if (found.has(dep)) continue;
      const pkg = await lookup(dep);
      if (!pkg) continue;
      found.add(dep);
      const versions = Object.keys(pkg.document.versions);
      const chosen = pkg.document.versions[String(range)]
        ? String(range)
        : (safeMaxSatisfying(versions, String(range)) ?? latestVersionOf(pkg.document));
      const next = chosen ? pkg.document.versions[chosen] : undefined;
      if (next) queue.push(next);
    }
  }
  return found;
}

function safeMaxSatisfying(versions: string[], range: string): string | null {
  try {
    return maxSatisfying(versions, range);
  } catch {
    return null;
  }
}

function versionRows(doc: PackageDocument): VersionRow[] {
  const tagsOf = new Map<string, string[]>();
  for (const [tag, version] of Object.entries(doc['dist-tags'] ?? {})) {
    tagsOf.set(version, [...(tagsOf.get(version) ?? []), tag]);
  }
  return sortVersions(Object.keys(doc.versions ?? {}))
    .reverse()
    .map((version) => ({
      version,
      published: doc.time?.[version] ?? '',
      tags: (tagsOf.get(version) ?? []).sort(),
      deprecated: typeof doc.versions[version]?.deprecated === 'string' && doc.versions[version]!.deprecated!.length > 0,
    }));
}

function readmeOf(record: VersionRecord, doc: PackageDocument): string {
  const own = typeof record.readme === 'string' ? record.readme : '';
  return own.length > 0 ? own : typeof doc.readme === 'string' ? doc.readme : '';
}
