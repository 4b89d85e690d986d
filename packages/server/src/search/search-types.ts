/**
 * The search values the storage ports speak in: a parsed query and a package's scores. A leaf
 * module, so that storage/ports.ts and the search rules (which read stored packages) both
 * depend on it instead of on each other.
 */

export interface SearchQuery {
  /** Lowercased free-text terms; a package matches when every term matches one of its fields. */
  terms: string[];
  /** `keywords:a,b,-c`: at least one of `include` is a keyword, none of `exclude` is (exact, lowercased). */
  keywords: { include: string[]; exclude: string[] };
  /** `author:x`: every value occurs in the author's name or e-mail. */
  authors: string[];
  /** `maintainer:x`: every value is a maintainer's user name or e-mail. */
  maintainers: string[];
  /** `is:deprecated` → true, `not:deprecated` → false. */
  deprecated?: boolean;
  /** `is:unstable` (below 1.0.0 or prerelease) → true, `not:unstable` → false. */
  unstable?: boolean;
  /** `is:insecure` → true: this registry knows no advisories, so nothing matches. */
  insecure?: boolean;
  /** `engine:godot`: every engine named is one the package's latest version supports (a version naming none is Unity's). */
  engines?: SearchEngine[];
}

export const SEARCH_ENGINES = ['unity', 'godot', 'unreal'] as const;
export type SearchEngine = (typeof SEARCH_ENGINES)[number];

export interface ScoreDetail {
  quality: number;
  popularity: number;
  maintenance: number;
}

export interface Scores {
  final: number;
  detail: ScoreDetail;
}
