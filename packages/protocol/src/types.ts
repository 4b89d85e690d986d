import type { SupportedEngine } from './engine-fields.js';

/** Wire types of the npm registry protocol as this registry speaks it. */

export interface Person {
  name: string;
  email?: string;
  url?: string;
}

export interface Dist {
  tarball: string;
  integrity: string;
  shasum: string;
  fileCount?: number;
  unpackedSize?: number;
  signatures?: unknown[];
  attestations?: unknown;
  /** Present when the tarball holds Unity's `package/.attestation.p7m`; `signer` when it could be read. */
  unitySignature?: { signer: string | null };
}

/** One published version (`GET /<name>/<version>`), the package.json of that version plus `dist`. */
export interface VersionRecord {
  name: string;
  version: string;
  description?: string;
  author?: string | Person;
  license?: string;
  keywords?: string[];
  displayName?: string;
  /** Minimum Unity editor, `<major>.<minor>`. */
  unity?: string;
  unityRelease?: string;
  /** Minimum Godot version, `<major>.<minor>`; `godotMax` the newest minor supported. */
  godot?: string;
  godotMax?: string;
  /** Minimum Unreal Engine version, `<major>.<minor>`; `unrealMax` the newest minor supported. */
  unreal?: string;
  unrealMax?: string;
  dependencies?: Record<string, string>;
  deprecated?: string;
  dist: Dist;
  _id?: string;
  [field: string]: unknown;
}

/** The full package document (`GET /<name>`), CouchDB-style as npm clients expect it. */
export interface PackageDocument {
  _id: string;
  _rev: string;
  name: string;
  description?: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, VersionRecord>;
  time: Record<string, string>;
  maintainers: Person[];
  readme?: string;
  readmeFilename?: string;
  keywords?: string[];
  license?: string;
  author?: string | Person;
  repository?: unknown;
  homepage?: string;
  bugs?: unknown;
  [field: string]: unknown;
}

export type DistTags = Record<string, string>;

export interface LoginRequest {
  name: string;
  password: string;
  email?: string;
}

export interface LoginResponse {
  ok: boolean;
  id: string;
  rev: string;
  token: string;
  /** Whether this login created the account (sign-up); npm ignores it, `pkg login` says so. */
  created?: boolean;
}

/**
 * Request header of a login that must not create an account (`pkg login --no-signup`): with
 * `false`, an unknown user gets the 401 of a closed sign-up.
 */
export const SIGNUP_HEADER = 'x-pkg-signup';

export interface WhoamiResponse {
  username: string;
  email: string;
  registry: string;
}

export interface PublishResponse {
  ok: boolean;
  id: string;
  rev: string;
}

/** A person in npm's search results. */
export interface SearchPerson {
  username: string;
  email: string;
}

export interface SearchObject {
  package: {
    name: string;
    version: string;
    description: string;
    keywords: string[];
    author: string;
    date: string;
    displayName?: string;
    license?: string;
    links: { homepage?: string; repository?: string; bugs?: string };
    publisher?: SearchPerson;
    maintainers: SearchPerson[];
    /** Read by the Unity Editor (as Verdaccio serves it). */
    time: { modified: string };
    /** The engines the shown version supports (absent in entries indexed before engines were recorded). */
    engines?: SupportedEngine[];
  };
  score: { final: number; detail: { quality: number; popularity: number; maintenance: number } };
  searchScore: number;
  downloads: { weekly: number; monthly: number };
  /** Last publish of any version (ISO). */
  updated: string;
  flags: { insecure: 0; unstable?: true; deprecated?: string };
  time: { modified: string };
}

export interface SearchResponse {
  objects: SearchObject[];
  total: number;
  time: string;
}

/** The accept type npm sends for the abbreviated ("corgi") document. */
export const ABBREVIATED_ACCEPT = 'application/vnd.npm.install-v1+json';

/** User document ids: the spec's `org.registry.user:` and npm's `org.couchdb.user:`. */
export const USER_ID_PREFIXES = ['org.registry.user:', 'org.couchdb.user:'] as const;
