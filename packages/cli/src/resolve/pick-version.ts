/**
 * Choosing versions from a registry document. A version is usable when it is published, not
 * deprecated and compatible with the project's engine; every choice below picks among those.
 */
import semver from 'semver';
import { recordOf, type PlanContext } from './plan-context.js';

function published(context: PlanContext, name: string): string[] {
  const versions = context.documents.get(name)?.versions;
  if (typeof versions !== 'object' || versions === null) return [];
  return Object.keys(versions)
    .filter((v) => semver.valid(v) === v)
    .sort(semver.compare);
}

function isDeprecated(context: PlanContext, name: string, version: string): boolean {
  const deprecated = recordOf(context, name, version)?.deprecated;
  return typeof deprecated === 'string' && deprecated.length > 0;
}

export function isUsable(context: PlanContext, name: string, version: string): boolean {
  const record = recordOf(context, name, version);
  return record !== undefined && !isDeprecated(context, name, version) && context.isCompatible(record);
}

/** Published, not deprecated, but asking for a newer engine than the project's. */
function isBlockedByEngine(context: PlanContext, name: string, version: string): boolean {
  const record = recordOf(context, name, version);
  return record !== undefined && !isDeprecated(context, name, version) && !context.isCompatible(record);
}

/**
 * The range an update may move `current` within: the caret range (same major; same minor for
 * 0.x, as npm's `^` does), or anything newer with `latest`. Prereleases only count when
 * `current` is a prerelease of the same version line, as semver ranges have it.
 */
function updateRange(current: string, latest: boolean): string {
  return latest ? `>${current}` : `^${current}`;
}

/**
 * The newest usable version newer than `current` within the update range; null when none. A
 * version no known advisory affects is preferred over a newer one that one does.
 */
export function pickUpdate(context: PlanContext, name: string, current: string, latest: boolean): string | null {
  const range = updateRange(current, latest);
  const candidates = published(context, name).filter(
    (v) => semver.gt(v, current) && semver.satisfies(v, range) && isUsable(context, name, v),
  );
  const unaffected = context.isAffected ? candidates.filter((v) => !context.isAffected!(name, v)) : candidates;
  return unaffected.at(-1) ?? candidates.at(-1) ?? null;
}

/** The newest usable version outside the caret range, for "a new major is available" notes. */
export function newerMajor(context: PlanContext, name: string, current: string): string | null {
  const candidates = published(context, name).filter(
    (v) =>
      semver.gt(v, current) &&
      !semver.prerelease(v) &&
      !semver.satisfies(v, updateRange(current, false)) &&
      isUsable(context, name, v),
  );
  return candidates.at(-1) ?? null;
}

/**
 * The newest version within the update range that the engine is too old for, when it is newer
 * than anything the update could pick; null when there is none.
 */
export function blockedByEngine(
  context: PlanContext,
  name: string,
  current: string,
  latest: boolean,
): { version: string; requires: string } | null {
  const range = updateRange(current, latest);
  const inRange = published(context, name).filter((v) => semver.gt(v, current) && semver.satisfies(v, range));
  const newest = inRange.at(-1);
  if (newest === undefined || !isBlockedByEngine(context, name, newest)) return null;
  return { version: newest, requires: context.requirementOf(recordOf(context, name, newest)!) ?? 'a newer engine' };
}

export type RaiseChoice =
  | { ok: true; version: string }
  | { ok: false; reason: 'crosses-major'; version: string }
  | { ok: false; reason: 'unavailable' }
  | { ok: false; reason: 'needs-newer-engine'; version: string; requires: string };

/**
 * The version to raise `name` to when another package needs at least `wanted`: the lowest usable
 * version in `wanted`'s caret range. Crossing `current`'s major needs `latest`. A package the
 * registry does not have is raised to exactly `wanted`, which is all anyone knows about it.
 */
export function pickRaise(context: PlanContext, name: string, current: string, wanted: string, latest: boolean): RaiseChoice {
  const allowed = (version: string): RaiseChoice =>
    latest || semver.satisfies(version, updateRange(current, false))
      ? { ok: true, version }
      : { ok: false, reason: 'crosses-major', version };
  if (context.documents.get(name) === null) return allowed(wanted);
  const inRange = published(context, name).filter((v) => semver.gte(v, wanted) && semver.satisfies(v, `^${wanted}`));
  const usable = inRange.find((v) => isUsable(context, name, v));
  if (usable !== undefined) return allowed(usable);
  const blocked = inRange.find((v) => isBlockedByEngine(context, name, v));
  if (blocked !== undefined) {
    return {
      ok: false,
      reason: 'needs-newer-engine',
      version: blocked,
      requires: context.requirementOf(recordOf(context, name, blocked)!) ?? 'a newer engine',
    };
  }
  return { ok: false, reason: 'unavailable' };
}

/**
 * The version `add` picks: the newest usable stable version (the newest usable prerelease when
 * the package has no stable one), or within `range` when one is given.
 */
export function pickNewest(context: PlanContext, name: string, range?: string): string | null {
  const versions = published(context, name).filter((v) => isUsable(context, name, v));
  if (range !== undefined) return versions.filter((v) => semver.satisfies(v, range)).at(-1) ?? null;
  const stable = versions.filter((v) => !semver.prerelease(v));
  return stable.at(-1) ?? versions.at(-1) ?? null;
}

/** Usable versions of `name`, newest first, for error messages. */
export function usableVersions(context: PlanContext, name: string): string[] {
  return published(context, name)
    .filter((v) => isUsable(context, name, v))
    .reverse();
}

/** All published versions, newest first, each with the engine version it asks for. */
export function versionRequirements(context: PlanContext, name: string): { version: string; requires: string | null }[] {
  return published(context, name)
    .reverse()
    .map((version) => ({ version, requires: context.requirementOf(recordOf(context, name, version)!) }));
}
