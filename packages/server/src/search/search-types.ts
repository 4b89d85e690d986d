import type { PackageDocument } from '@pkg/protocol';

/**
 * The search values the storage ports speak in: a parsed query, a package's scores, a page of
 * hits, and what indexing reads of a stored package. A leaf module: storage/ports.ts depends on
 * it, the search rules depend on nothing of storage.
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

export interface SearchHit {
  name: string;
  /** Relevance tier (search/relevance.ts TIER). */
  tier: number;
  /** Deprecation message of the shown version, when deprecated. */
  deprecated?: string;
  unstable: boolean;
  scores: Scores;
  downloads: { weekly: number; monthly: number };
  /** Last publish of any version (ISO). */
  updated: string;
  /** Last change of the document (ISO). */
  modified: string;
  /** The result's `package` object, serialized when the package was indexed. */
  packageJson: string;
}

export interface SearchPage {
  /** Number of all matches, not the page length. */
  total: number;
  hits: SearchHit[];
}

/** What indexing reads of a stored package (storage/ports.ts `StoredPackage` has this shape). */
export interface IndexablePackage {
  document: PackageDocument;
  /** True when the whole package was unpublished: not searchable. */
  unpublished: boolean;
}
