/**
 * What the planners know about the world: registry documents fetched so far and the engine's
 * rules, as plain data and predicates. Planners read nothing else, so they are pure functions.
 */
import type { PackageDocument, VersionRecord } from '@pkg/protocol';
import semver from 'semver';

export interface PlanContext {
  /**
   * Registry documents by package name: a document, null when the registry does not have the
   * package, absent when it has not been fetched yet (a planner then asks for it).
   */
  documents: ReadonlyMap<string, PackageDocument | null>;
  /** True when the project's engine can use this version. */
  isCompatible(record: VersionRecord): boolean;
  /** True for packages shipped with the engine (never fetched, never updated). */
  isBuiltIn(name: string): boolean;
  /** The engine version `record` asks for, for messages; null when it asks for none. */
  requirementOf(record: VersionRecord): string | null;
  /**
   * True for packages served by a registry pkg does not ask (the engine maker's own, which the
   * editor updates itself); their documents are null.
   */
  isUnqueried?(name: string): boolean;
  /**
   * True for a version a known security advisory affects (`pkg update` asks the registries
   * first); an update then prefers a version outside the affected ranges. Absent: none known.
   */
  isAffected?(name: string, version: string): boolean;
}

/** A planner's answer when it needs more documents before it can decide. */
export interface NeedsDocuments {
  kind: 'needs-documents';
  names: string[];
}

/** The records of `name`'s published versions (objects only: a foreign registry may send junk). */
export function recordOf(context: PlanContext, name: string, version: string): VersionRecord | undefined {
  const record = context.documents.get(name)?.versions?.[version];
  return typeof record === 'object' && record !== null ? record : undefined;
}

/**
 * The record Unity would resolve for a dependency on `name@version`: that version when published,
 * else the lowest published one above it.
 */
export function recordAtLeast(context: PlanContext, name: string, version: string): VersionRecord | undefined {
  const exact = recordOf(context, name, version);
  if (exact || !semver.valid(version)) return exact;
  const versions = Object.keys(context.documents.get(name)?.versions ?? {});
  const above = versions.filter((v) => semver.valid(v) && semver.gt(v, version)).sort(semver.compare);
  return above.length > 0 ? recordOf(context, name, above[0]!) : undefined;
}

/** The dependencies a version record declares, keeping only well-formed string entries. */
export function dependenciesOf(record: VersionRecord | undefined): [string, string][] {
  const deps = record?.dependencies;
  if (typeof deps !== 'object' || deps === null) return [];
  return Object.entries(deps).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

/**
 * Every package the registry serves that `roots` need, themselves included: walks the
 * dependencies of the given versions and, below them, of the versions they ask for. Built-ins and
 * packages the registry lacks are left out (Unity gets them elsewhere). Names whose documents are
 * not known yet come back in `missing`; `records` are the versions Unity would resolve.
 */
export function registryClosure(
  context: PlanContext,
  roots: Iterable<{ name: string; version: string }>,
): { names: Set<string>; missing: Set<string>; records: VersionRecord[] } {
  const names = new Set<string>();
  const records: VersionRecord[] = [];
  const missing = new Set<string>();
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const { name, version } = queue.shift()!;
    const key = `${name}@${version}`;
    if (seen.has(key) || context.isBuiltIn(name)) continue;
    seen.add(key);
    const document = context.documents.get(name);
    if (document === undefined) {
      missing.add(name);
      continue;
    }
    if (document === null) continue;
    names.add(name);
    const record = recordAtLeast(context, name, version);
    if (record && !records.includes(record)) records.push(record);
    for (const [dependency, wanted] of dependenciesOf(record)) {
      queue.push({ name: dependency, version: wanted });
    }
  }
  return { names, missing, records };
}
