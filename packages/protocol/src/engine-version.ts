/**
 * Engine versions. The Unity editor writes versions such as `2022.3.10f1`, `6000.0.23f1`,
 * `2022.3.62f3c1` (China builds) and `2023.1.0a14` / `2023.1.0b2`; a package declares the minimum
 * editor as `unity: "<major>.<minor>"` plus an optional `unityRelease: "<patch><kind><n>"`.
 */

/** Release kinds in ascending order within one `major.minor.patch`. */
const KIND_ORDER = { a: 0, b: 1, f: 2, p: 3, x: -1 } as const;
type ReleaseKind = keyof typeof KIND_ORDER;

export interface UnityVersion {
  major: number;
  minor: number;
  patch: number;
  kind: ReleaseKind;
  build: number;
  /** Suffix for regional builds (`c1` in `2022.3.62f3c1`), 0 when absent. */
  regional: number;
}

const EDITOR_VERSION = /^(\d+)\.(\d+)\.(\d+)([abfpx])(\d+)(?:c(\d+))?$/;
const MIN_EDITOR_FIELD = /^(\d+)\.(\d+)$/;
const UNITY_RELEASE_FIELD = /^(\d+)([abfpx])(\d+)$/;

/** Parses a full editor version (`2022.3.10f1`); null when it is not one. */
export function parseUnityVersion(input: string): UnityVersion | null {
  const m = EDITOR_VERSION.exec(input.trim());
  if (!m) return null;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    kind: m[4] as ReleaseKind,
    build: Number(m[5]),
    regional: m[6] === undefined ? 0 : Number(m[6]),
  };
}

export function compareUnityVersions(a: UnityVersion, b: UnityVersion): number {
  return (
    a.major - b.major ||
    a.minor - b.minor ||
    a.patch - b.patch ||
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    a.build - b.build ||
    a.regional - b.regional
  );
}

export function formatUnityVersion(v: UnityVersion): string {
  return `${v.major}.${v.minor}.${v.patch}${v.kind}${v.build}${v.regional ? `c${v.regional}` : ''}`;
}

/** True when `value` is a valid `unity` field of a version record (`<major>.<minor>`). */
export function isUnityMinVersion(value: unknown): value is string {
  return typeof value === 'string' && MIN_EDITOR_FIELD.test(value);
}

/** True when `value` is a valid `unityRelease` field (`0f1`, `10b3`). */
export function isUnityRelease(value: unknown): value is string {
  return typeof value === 'string' && UNITY_RELEASE_FIELD.test(value);
}

/**
 * The lowest editor a package accepts, from its `unity` and optional `unityRelease` fields;
 * null when `unity` is malformed. Without `unityRelease` the lowest release of that minor counts.
 */
export function minimumUnityVersion(unity: string, unityRelease?: string): UnityVersion | null {
  const m = MIN_EDITOR_FIELD.exec(unity);
  if (!m) return null;
  const base = { major: Number(m[1]), minor: Number(m[2]), regional: 0 };
  if (unityRelease === undefined || unityRelease === '') {
    return { ...base, patch: 0, kind: 'x', build: 0 };
  }
  const r = UNITY_RELEASE_FIELD.exec(unityRelease);
  if (!r) return null;
  return { ...base, patch: Number(r[1]), kind: r[2] as ReleaseKind, build: Number(r[3]) };
}

/** True when an editor of version `editor` can use a package declaring `unity`/`unityRelease`. */
export function isUnityCompatible(editor: UnityVersion, unity: string | undefined, unityRelease?: string): boolean {
  if (unity === undefined) return true;
  const min = minimumUnityVersion(unity, unityRelease);
  if (min === null) return false;
  return compareUnityVersions(editor, min) >= 0;
}
