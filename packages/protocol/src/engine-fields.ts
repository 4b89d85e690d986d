/**
 * The engine fields of a version record beside Unity's: `godot` and `unreal`, each the minimum
 * engine version as `<major>.<minor>`, with optional `godotMax` / `unrealMax`, the newest minor
 * supported (an Unreal plugin with prebuilt binaries loads in one minor only). The registry
 * checks them on publish and the client checks projects against them with the same functions.
 */

export type MinorEngine = 'godot' | 'unreal';

interface MinorEngineSpec {
  /** The version-record field of the minimum version. */
  field: MinorEngine;
  /** The version-record field of the newest supported minor. */
  maxField: 'godotMax' | 'unrealMax';
  displayName: string;
  example: string;
}

export const MINOR_ENGINES: Record<MinorEngine, MinorEngineSpec> = {
  godot: { field: 'godot', maxField: 'godotMax', displayName: 'Godot', example: '4.2' },
  unreal: { field: 'unreal', maxField: 'unrealMax', displayName: 'Unreal Engine', example: '5.3' },
};

export interface MinorVersion {
  major: number;
  minor: number;
}

// As in engine-version.ts: no leading zeros, at most nine digits.
const NUM = '(0|[1-9]\\d{0,8})';
const MINOR_FIELD = new RegExp(`^${NUM}\\.${NUM}$`);
/** A project's engine version: `4.2`, `4.2.1`, `5.3.2`. */
const PROJECT_VERSION = new RegExp(`^${NUM}\\.${NUM}(?:\\.${NUM})?$`);

/** `<major>.<minor>` as a field holds it; null when it is not one. */
export function parseMinorVersion(value: unknown): MinorVersion | null {
  if (typeof value !== 'string') return null;
  const m = MINOR_FIELD.exec(value);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

/** A project's engine version (`4.2`, `4.2.1`) reduced to its minor; null when it is not one. */
export function parseProjectMinorVersion(value: string): MinorVersion | null {
  const m = PROJECT_VERSION.exec(value);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

export function compareMinorVersions(a: MinorVersion, b: MinorVersion): number {
  return a.major - b.major || a.minor - b.minor;
}

/**
 * Why the record's fields of `engine` are malformed, for the publish 422; null when they are
 * fine or absent.
 */
export function minorEngineFieldProblem(record: Record<string, unknown>, engine: MinorEngine): string | null {
  const { field, maxField, example } = MINOR_ENGINES[engine];
  const min = record[field];
  const max = record[maxField];
  if (min !== undefined && parseMinorVersion(min) === null) {
    return `'${field}' must be a minimum engine version of the form <major>.<minor>, e.g. ${example}`;
  }
  if (max === undefined) return null;
  if (min === undefined) return `'${maxField}' needs a '${field}' field`;
  const parsedMax = parseMinorVersion(max);
  if (parsedMax === null) return `'${maxField}' must be the newest supported version as <major>.<minor>, e.g. ${example}`;
  if (compareMinorVersions(parsedMax, parseMinorVersion(min)!) < 0) return `'${maxField}' must not be below '${field}'`;
  return null;
}

/** The range of engine versions a record supports; null when it names no such engine or names it wrongly. */
export function minorEngineRange(
  record: Record<string, unknown>,
  engine: MinorEngine,
): { min: MinorVersion; max?: MinorVersion } | null {
  const { field, maxField } = MINOR_ENGINES[engine];
  if (minorEngineFieldProblem(record, engine) !== null) return null;
  const min = parseMinorVersion(record[field]);
  if (min === null) return null;
  const max = parseMinorVersion(record[maxField]);
  return max ? { min, max } : { min };
}

/** True when a project at `version` (`4.2`, `4.2.1`) can use the record. A record not naming the engine cannot. */
export function isMinorEngineCompatible(record: Record<string, unknown>, engine: MinorEngine, version: string): boolean {
  const range = minorEngineRange(record, engine);
  const project = parseProjectMinorVersion(version);
  if (range === null || project === null) return false;
  return compareMinorVersions(project, range.min) >= 0 && (!range.max || compareMinorVersions(project, range.max) <= 0);
}

/** `Godot 4.2`, `Unreal Engine 5.3–5.4`, `Unreal Engine 5.3 only`: the range as people read it. */
export function formatMinorEngineRange(engine: MinorEngine, range: { min: MinorVersion; max?: MinorVersion }): string {
  const name = MINOR_ENGINES[engine].displayName;
  const f = (v: MinorVersion) => `${v.major}.${v.minor}`;
  if (!range.max) return `${name} ${f(range.min)}`;
  if (compareMinorVersions(range.min, range.max) === 0) return `${name} ${f(range.min)} only`;
  return `${name} ${f(range.min)}–${f(range.max)}`;
}

/** One engine a version supports, for search results and the web. */
export interface SupportedEngine {
  engine: 'unity' | MinorEngine;
  /** The minimum version as the record states it, e.g. `2021.3`, `4.2`; absent for any version. */
  min?: string;
  /** The newest supported minor, for Godot and Unreal. */
  max?: string;
  /** Search objects, Unity only: Unity's package signature of the version (see unitySignatureOf). */
  signature?: UnitySignature | null;
}

/** Unity's package signature of a version (`dist.unitySignature`): who signed it, when readable. */
export interface UnitySignature {
  signer: string | null;
}

/**
 * Unity's package signature of a version: `{signer}` when its tarball holds
 * `package/.attestation.p7m` (the registry records it at publish), null for an unsigned Unity
 * package (Unity 6.3+ shows it as unsigned), undefined for a version that is not a Unity package.
 */
export function unitySignatureOf(record: Record<string, unknown>): UnitySignature | null | undefined {
  const dist = record.dist as { unitySignature?: { signer?: unknown } } | undefined;
  const signature = dist?.unitySignature;
  if (signature && typeof signature === 'object')
    return { signer: typeof signature.signer === 'string' ? signature.signer : null };
  return supportedEngines(record).some((e) => e.engine === 'unity') ? null : undefined;
}

/**
 * The engines a version record names, in the order Unity, Godot, Unreal. A record naming none
 * is a Unity package (every package before Godot and Unreal were supported was one).
 */
export function supportedEngines(record: Record<string, unknown>): SupportedEngine[] {
  const engines: SupportedEngine[] = [];
  if (typeof record.unity === 'string' && record.unity.length > 0) {
    const release = typeof record.unityRelease === 'string' && record.unityRelease.length > 0 ? `.${record.unityRelease}` : '';
    engines.push({ engine: 'unity', min: `${record.unity}${release}` });
  }
  for (const engine of ['godot', 'unreal'] as const) {
    const range = minorEngineRange(record, engine);
    if (!range) continue;
    const f = (v: MinorVersion) => `${v.major}.${v.minor}`;
    engines.push({ engine, min: f(range.min), ...(range.max ? { max: f(range.max) } : {}) });
  }
  return engines.length > 0 ? engines : [{ engine: 'unity' }];
}
