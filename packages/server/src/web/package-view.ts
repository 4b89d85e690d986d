import type { UplinkRules } from '../config/uplink-config.js';
import {
  maxSatisfying,
  sortVersions,
  supportedEngines,
  type PackageDocument,
  type SupportedEngine,
  type VersionRecord,
} from '@pkg/protocol';
import type { Dependents, DependentsService } from '../services/dependents.js';
import type { PackageReadService } from '../services/package-reads.js';
import type { StoredPackage, TenantId } from '../storage/ports.js';
import { installSnippet, type InstallSnippet } from './install-snippet.js';
import { bugsUrl, keywordsOf, latestVersionOf, personName, repositoryDirectory, repositoryUrl } from './package-facts.js';
import { safeHttpUrl } from './html.js';

export interface VersionRow {
  version: string;
  /** ISO time of publication ('' when unknown). */
  published: string;
  tags: string[];
  deprecated: boolean;
  /** Advisories in force that affect it (this registry's and the upstream's). */
  advisories: number;
}

export interface DependencyRow {
  name: string;
  range: string;
  /** Served by this registry (the page links to it). */
  hosted: boolean;
}

/** Which readme the page shows: the version's own, or the package's (the latest publish's) for a version without one. */
export interface ReadmeView {
  markdown: string;
  /** `version`: the shown version's own; `package`: the one kept for the package (see `from`). */
  source: 'version' | 'package';
  /** The version whose readme the package keeps (the `latest` one), when the page shows another. */
  from: string | undefined;
}

/** A known advisory for the shown version (filled by whoever keeps advisories; none by default). */
export interface AdvisoryMark {
  title: string;
  severity: string;
  url: string | undefined;
  /** The upstream registry (uplink) it comes from; undefined for this registry's own. */
  upstream?: string;
}

/** Supply-chain facts of the shown version, as the stored document has them. */
export interface SupplyMarks {
  /** The registry signed the version (`dist.signatures`). */
  signed: boolean;
  /** A provenance attestation was published with it (`dist.attestations.provenance`). */
  provenance: boolean;
  /** Unity's package signature: its signer (null when unreadable); `false` for an unsigned Unity package; undefined for others. */
  unity?: { signer: string | null } | false;
  advisories: AdvisoryMark[];
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
  readme: ReadmeView;
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
  /** The package's folder inside its repository (`repository.directory`), for readme links. */
  repositoryDirectory: string;
  /** Where to report issues (`bugs`): an http(s) or mailto URL. */
  bugs: string | undefined;
  published: string;
  /** The registry's URL of the version's tarball and its file name. */
  tarball: { url: string; file: string };
  /** From `dist`: what the tarball unpacks to (absent for versions published before they were recorded). */
  unpackedSize: number | undefined;
  fileCount: number | undefined;
  dependents: Dependents;
  marks: SupplyMarks;
  install: InstallSnippet;
}

export interface PackageViewOptions {
  /** Reads here need a token: the install box says to log in first. */
  needsToken?: boolean;
  /** The registry's uplinks: the advisories of a name one covers include the upstream's. */
  uplinks?: UplinkRules | undefined;
}

/** The advisories affecting each of `versions` (those none affects left out), from whoever keeps them; the default knows none. */
export type AdvisorySource = (
  tenant: TenantId,
  name: string,
  versions: readonly string[],
  uplinks: UplinkRules | undefined,
) => Promise<Map<string, AdvisoryMark[]>>;

/** Most packages a manifest snippet follows when collecting the scopes of dependencies. */
const MAX_SCOPE_WALK = 500;

/** Builds package pages' view models; dependencies are looked up in the same tenant. */
export class PackageViews {
  readonly #packages: PackageReadService;
  readonly #dependents: DependentsService;
  readonly #advisories: AdvisorySource;

  constructor(packages: PackageReadService, dependents: DependentsService, advisories: AdvisorySource = async () => new Map()) {
    this.#packages = packages;
    this.#dependents = dependents;
    this.#advisories = advisories;
  }

  /** The view of `name` at `version` (default: latest), or undefined when either does not exist. */
  async view(
    tenant: TenantId,
    baseUrl: string,
    name: string,
    version?: string,
    options: PackageViewOptions = {},
  ): Promise<PackageView | undefined> {
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
    const tarballFile = tarballFileOf(record, name, shown);
    const advisories = await this.#advisories(tenant, name, Object.keys(doc.versions ?? {}), options.uplinks);
    const dist = record.dist ?? ({} as VersionRecord['dist']);

    return {
      name,
      displayName: typeof record.displayName === 'string' ? record.displayName : undefined,
      description: String(record.description ?? doc.description ?? ''),
      version: shown,
      latest,
      deprecated: typeof record.deprecated === 'string' && record.deprecated.length > 0 ? record.deprecated : undefined,
      readme: readmeOf(record, doc, shown, latest),
      versions: versionRows(doc, advisories),
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
      repositoryDirectory: repositoryDirectory(record.repository ?? doc.repository),
      bugs: bugsUrl(record.bugs ?? doc.bugs),
      published: doc.time?.[shown] ?? '',
      tarball: { url: `${baseUrl.replace(/\/+$/, '')}/${name}/-/${encodeURIComponent(tarballFile)}`, file: tarballFile },
      unpackedSize: countOrUndefined(dist.unpackedSize),
      fileCount: countOrUndefined(dist.fileCount),
      dependents: await this.#dependents.of(tenant, name),
      marks: {
        signed: Array.isArray(dist.signatures) && dist.signatures.length > 0,
        provenance: hasProvenance(dist),
        ...unityMark(record, dist),
        advisories: advisories.get(shown) ?? [],
      },
      install: installSnippet({
        baseUrl,
        name,
        version: shown,
        scopes,
        engines,
        tarballFile,
        needsToken: options.needsToken === true,
      }),
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

function versionRows(doc: PackageDocument, advisories: ReadonlyMap<string, AdvisoryMark[]>): VersionRow[] {
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
      deprecated: typeof doc.versions[version]?.deprecated === 'string' && doc.versions[version].deprecated.length > 0,
      advisories: advisories.get(version)?.length ?? 0,
    }));
}

/**
 * The registry keeps one readme per package, the latest publish's (as npm's registry does); a
 * version record carries its own only when it came with one (documents from other registries).
 * Any other version's page says whose readme it shows.
 */
function readmeOf(record: VersionRecord, doc: PackageDocument, shown: string, latest: string): ReadmeView {
  const own = typeof record.readme === 'string' ? record.readme : '';
  if (own.length > 0 && !isNpmPlaceholder(own)) return { markdown: own, source: 'version', from: undefined };
  const kept = typeof doc.readme === 'string' && !isNpmPlaceholder(doc.readme) ? doc.readme : '';
  if (shown === latest) return { markdown: kept, source: 'version', from: undefined };
  return { markdown: kept, source: 'package', from: latest };
}

/** What npm publishes for a package without a README file: not a readme. */
function isNpmPlaceholder(text: string): boolean {
  return /^\s*ERROR: No README data found!\s*$/.test(text);
}

/** The file name of a version's tarball (its `dist.tarball`'s last segment), `<name>-<version>.tgz` by default. */
function tarballFileOf(record: VersionRecord, name: string, version: string): string {
  const fallback = `${name}-${version}.tgz`;
  const url = typeof record.dist?.tarball === 'string' ? record.dist.tarball : '';
  const file = url.slice(url.lastIndexOf('/') + 1).split(/[?#]/)[0] ?? '';
  try {
    const decoded = decodeURIComponent(file);
    return /^[a-z0-9][a-z0-9._-]*\.tgz$/i.test(decoded) ? decoded : fallback;
  } catch {
    return fallback;
  }
}

function countOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** npm's `dist.attestations`: `{url, provenance: {predicateType}}`. */
function hasProvenance(dist: VersionRecord['dist']): boolean {
  const attestations = (dist as { attestations?: unknown }).attestations;
  if (!attestations || typeof attestations !== 'object') return false;
  const provenance = (attestations as { provenance?: unknown }).provenance;
  return typeof provenance === 'object' && provenance !== null;
}

/** Unity's signature mark: signed (by whom, when readable) or unsigned, for Unity packages only. */
function unityMark(record: Record<string, unknown>, dist: object): Pick<SupplyMarks, 'unity'> {
  const signature = (dist as { unitySignature?: { signer?: unknown } }).unitySignature;
  if (signature && typeof signature === 'object') {
    return { unity: { signer: typeof signature.signer === 'string' ? signature.signer : null } };
  }
  return typeof record.unity === 'string' ? { unity: false } : {};
}
