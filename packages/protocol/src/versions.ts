import semver from 'semver';

/** A strict semantic version (no `v` prefix, no loose forms). */
export function isSemver(input: unknown): input is string {
  return typeof input === 'string' && input.length <= 256 && semver.valid(input) === input;
}

/** The highest version in `versions` satisfying `range`, prereleases excluded unless the range names one. */
export function maxSatisfying(versions: Iterable<string>, range: string): string | null {
  return semver.maxSatisfying([...versions], range);
}

/** Versions sorted from oldest to newest by semver precedence. */
export function sortVersions(versions: Iterable<string>): string[] {
  return [...versions].filter((v) => semver.valid(v)).sort(semver.compare);
}

export function compareVersions(a: string, b: string): number {
  return semver.compare(a, b);
}
