/**
 * The advisories of versions a project holds or may take: npm's bulk request to the registry
 * of each package, and the marks `pkg list` and `pkg update` show from its answer.
 */
import semver from 'semver';
import type { BulkAdvisory } from '../http/registry-client.js';
import type { ClientError } from '../errors/client-errors.js';
import type { ProjectRegistries } from './project-registries.js';
import type { AdvisoryMark } from '../reports/advisory-marks.js';

export interface KnownAdvisories {
  /** The registries' answers, by name: the advisories that affect at least one version asked about. */
  found: Map<string, BulkAdvisory[]>;
  /** The advisories of `name` that affect `version`, most severe first. */
  affecting(name: string, version: string): AdvisoryMark[];
  /** Registries whose advisories could not be asked, with why (`tolerant` runs only). */
  failed: Map<string, ClientError>;
  /** What registries said of their answers (`npm-notice`: an upstream that could not be asked). */
  notices: string[];
}

const SEVERITY_ORDER = ['critical', 'high', 'moderate', 'low', 'info'];

/**
 * Asks each registry about `versions` (name → versions). With `tolerant`, a registry that
 * cannot answer costs only its marks (named in `failed`); else its error stops the run.
 */
export async function askAdvisories(
  registries: Pick<ProjectRegistries, 'set' | 'inRun'>,
  versions: ReadonlyMap<string, readonly string[]>,
  tolerant: boolean,
): Promise<KnownAdvisories> {
  const byRegistry = new Map<string, Record<string, string[]>>();
  for (const [name, list] of versions) {
    const valid = list.filter((v) => semver.valid(v));
    if (valid.length === 0 || !registries.inRun(name) || registries.set.isUnqueried(name)) continue;
    const url = registries.set.registryOf(name);
    if (registries.set.unreachable.has(url)) continue;
    byRegistry.set(url, { ...(byRegistry.get(url) ?? {}), [name]: valid });
  }
  const found = new Map<string, BulkAdvisory[]>();
  const failed = new Map<string, ClientError>();
  const notices: string[] = [];
  for (const [url, asked] of byRegistry) {
    try {
      const { advisories: answer, notice } = await (await registries.set.client(url)).advisoriesFor(asked);
      if (notice !== null) notices.push(`${url}: ${notice}`);
      for (const [name, advisories] of Object.entries(answer))
        if (versions.has(name) && Array.isArray(advisories)) found.set(name, advisories);
    } catch (err) {
      if (!tolerant) throw err;
      failed.set(url, err as ClientError);
    }
  }
  return {
    found,
    failed,
    notices,
    affecting(name, version) {
      return (found.get(name) ?? [])
        .filter((a) => typeof a.vulnerable_versions === 'string' && affects(a.vulnerable_versions, version))
        .map(markOf)
        .sort((a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity));
    },
  };
}

/** Whether `version` is in an advisory's range (prereleases too, as npm audit counts them). */
export function affects(range: string, version: string): boolean {
  return semver.valid(version) !== null && semver.satisfies(version, range, { includePrerelease: true });
}

function markOf(a: BulkAdvisory): AdvisoryMark {
  return {
    id: String(a.id),
    severity: String(a.severity),
    title: String(a.title ?? ''),
    vulnerable_versions: a.vulnerable_versions,
    patched_versions: typeof a.patched_versions === 'string' ? a.patched_versions : null,
    url: String(a.url ?? ''),
  };
}
