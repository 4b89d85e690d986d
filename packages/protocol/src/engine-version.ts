/**
 * Unity editor versions. The editor writes versions such as `2019.4.40f1`, `2022.3.10f1`,
 * `6000.0.23f1`, `2022.3.62f3c1` (China builds), `2023.1.0a14` / `2023.1.0b2` (alpha, beta),
 * `5.6.4p1` (patch releases) and, rarely, `2018.3.0x1` (experimental). A package declares the
 * minimum editor as `unity: "<major>.<minor>"` plus an optional `unityRelease: "<patch><kind><n>"`.
 */

/**
 * Release kinds in ascending order within one `major.minor.patch`: experimental builds come
 * before alphas, then betas, final releases and the patch releases made after a final.
 */
const KIND_ORDER = { x: 0, a: 1, b: 2, f: 3, p: 4 } as const;
export type UnityReleaseKind = keyof typeof KIND_ORDER;
export const UNITY_RELEASE_KINDS = Object.keys(KIND_ORDER) as UnityReleaseKind[];

export interface UnityVersion {
  major: number;
  minor: number;
  patch: number;
  kind: UnityReleaseKind;
  build: number;
  /** Build number of a regional (China) build, the `c1` in `2022.3.62f3c1`; 0 when absent. */
  regional: number;
}

/** What a version record asks of the editor: `unity` and, when given, `unityRelease`. */
export interface UnityRequirement {
  major: number;
  minor: number;
  /** Absent when the package gave no `unityRelease`: any release of that minor will do. */
  release?: { patch: number; kind: UnityReleaseKind; build: number; regional: number };
}

// Numbers as Unity writes them: no leading zeros (one spelling per version), at most nine digits
// (always a safe integer).
const NUM = '(0|[1-9]\\d{0,8})';
const KIND = '([xabfp])';
const REGIONAL = `(?:c${NUM})?`;
const EDITOR_VERSION = new RegExp(`^${NUM}\\.${NUM}\\.${NUM}${KIND}${NUM}${REGIONAL}$`);
const MIN_EDITOR_FIELD = new RegExp(`^${NUM}\\.${NUM}$`);
const UNITY_RELEASE_FIELD = new RegExp(`^${NUM}${KIND}${NUM}${REGIONAL}$`);

/** Parses a full editor version (`2022.3.10f1`); null when it is not one. */
export function parseUnityVersion(input: string): UnityVersion | null {
  const m = EDITOR_VERSION.exec(input);
  if (!m) return null;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    kind: m[4] as UnityReleaseKind,
    build: Number(m[5]),
    regional: m[6] === undefined ? 0 : Number(m[6]),
  };
}

/** Negative, zero or positive as `a` is older than, the same as or newer than `b`. */
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
 * The editor a package asks for, from its `unity` and optional `unityRelease` fields; null when
 * either is malformed. An empty `unityRelease` counts as absent (Unity's own manifests do that).
 */
export function parseUnityRequirement(unity: string, unityRelease?: string): UnityRequirement | null {
  const m = MIN_EDITOR_FIELD.exec(unity);
  if (!m) return null;
  const requirement: UnityRequirement = { major: Number(m[1]), minor: Number(m[2]) };
  if (unityRelease === undefined || unityRelease === '') return requirement;
  const r = UNITY_RELEASE_FIELD.exec(unityRelease);
  if (!r) return null;
  requirement.release = {
    patch: Number(r[1]),
    kind: r[2] as UnityReleaseKind,
    build: Number(r[3]),
    regional: r[4] === undefined ? 0 : Number(r[4]),
  };
  return requirement;
}

/** `2021.3` or `2021.3.0f1`: the requirement as a person reads it. */
export function formatUnityRequirement(requirement: UnityRequirement): string {
  const { major, minor, release } = requirement;
  if (!release) return `${major}.${minor}`;
  return formatUnityVersion({ major, minor, ...release });
}

/** True when an editor of version `editor` satisfies `requirement`. */
export function satisfiesUnityRequirement(editor: UnityVersion, requirement: UnityRequirement): boolean {
  const byMinor = editor.major - requirement.major || editor.minor - requirement.minor;
  if (byMinor !== 0 || !requirement.release) return byMinor >= 0;
  return compareUnityVersions(editor, { major: requirement.major, minor: requirement.minor, ...requirement.release }) >= 0;
}

/**
 * True when an editor of version `editor` can use a package declaring `unity`/`unityRelease`.
 * A package without `unity` runs everywhere; one with a malformed field runs nowhere (the
 * registry refuses to publish those, so only a foreign registry can serve one).
 */
export function isUnityCompatible(editor: UnityVersion, unity: string | undefined, unityRelease?: string): boolean {
  if (unity === undefined) return true;
  const requirement = parseUnityRequirement(unity, unityRelease);
  return requirement !== null && satisfiesUnityRequirement(editor, requirement);
}
