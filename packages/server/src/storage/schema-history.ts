import { ConfigError } from '../config/config.js';

/** Which migrations a binary knows: each scope's count (core, and each hook's own). */
export type KnownScopes = readonly (readonly [scope: string, count: number])[];

/** A migration found applied in the database. */
export interface AppliedMigration {
  scope: string;
  version: number;
  /** The pkg-registry release that applied it; absent for those applied before releases were recorded. */
  release?: string | undefined;
}

/** Where a migration is reported while it runs (the server's log once it exists). */
export interface MigrationLog {
  info(details: object, message: string): void;
}

/**
 * The data was upgraded by a newer pkg-registry than this one: serving it could misread or
 * corrupt rows this binary does not know. Start-up refuses (exit 2) and says which release the
 * data needs.
 */
export class NewerDataError extends ConfigError {
  override name = 'NewerDataError';
}

/**
 * Refuses data a newer binary has migrated: a migration of a scope this binary knows beyond the
 * last it has, or a scope it does not know that a newer release recorded. `where` names the
 * setting and the database for the message.
 */
export function assertDataNotNewer(
  applied: readonly AppliedMigration[],
  known: KnownScopes,
  release: string,
  where: string,
): void {
  const counts = new Map(known);
  const unknown = applied.filter((migration) => {
    const count = counts.get(migration.scope);
    if (count !== undefined) return migration.version >= count;
    return migration.release !== undefined && compareReleases(migration.release, release) > 0;
  });
  if (unknown.length === 0) return;
  const needed = unknown
    .map((migration) => migration.release)
    .filter((r): r is string => r !== undefined)
    .sort(compareReleases)
    .at(-1);
  const first = unknown[0]!;
  throw new NewerDataError(
    `${where} was upgraded by ${needed ? `pkg-registry ${needed}` : 'a newer pkg-registry'} (schema ${first.scope} ${first.version + 1}); this is pkg-registry ${release}, which knows ${first.scope} up to ${counts.get(first.scope) ?? 0}`,
    `install pkg-registry ${needed ?? 'of the release that wrote the data'} or newer; a backup taken before the upgrade restores with the older release`,
  );
}

/** Semantic version order of `x.y.z[-pre]` (a pre-release sorts before its release). */
export function compareReleases(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.split('-', 2);
    return { parts: core.split('.').map((n) => Number.parseInt(n, 10) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}
