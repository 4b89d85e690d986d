/**
 * The relevance rules of search, written once as plain functions: which packages match a
 * query, in which tier, and in which order results come. Drivers implement them in their own
 * query language (SQLite: sqlite-search-sql.ts); the search tests check every driver's
 * answers against these functions, so a new driver meets the same rules.
 */
import type { SearchTexts } from './search-fields.js';
import type { SearchQuery } from './search-types.js';

/** Relevance tiers, best first. */
export const TIER = {
  /** The text is the package name (or its displayName). */
  EXACT_NAME: 0,
  /** Every term starts the name or one of its parts (split at `.`, `-`, `_`, space), or the displayName's. */
  NAME_PART: 1,
  /** Every term occurs somewhere in the name or displayName. */
  NAME: 2,
  /** Every term occurs in the name, displayName or keywords. */
  KEYWORDS: 3,
  /** The rest: some term only in the description or author; also every qualifier-only query. */
  TEXT: 4,
} as const;

/** What the rules look at: the indexed texts plus exact keyword and maintainer lists, all lowercased. */
export interface RankedPackage {
  name: string;
  texts: SearchTexts;
  keywords: readonly string[];
  maintainers: readonly string[];
  deprecated: boolean;
  unstable: boolean;
  final: number;
  /** The engines the latest version supports (`unity` for a version naming none). */
  engines: readonly string[];
}

/** Free-text fields a term may match. */
const TERM_FIELDS = ['name', 'displayName', 'keywords', 'description', 'author'] as const;
/** Separators after which a term counts as the start of a name part. */
export const PART_SEPARATORS = [' ', '.', '-', '_'] as const;

/**
 * Terms of three characters or more match anywhere inside a field (a substring); shorter
 * terms match the start of a word (a two-letter fragment inside a word matches nearly every
 * package and tells nothing). Words are runs of letters and digits.
 */
export const SUBSTRING_MIN_LENGTH = 3;

export function isShortTerm(term: string): boolean {
  return [...term].length < SUBSTRING_MIN_LENGTH;
}

const WORD_SEPARATORS = /[^\p{L}\p{N}\p{Co}]+/u;

/** Does `term` match `text` (both lowercased) by the rule above? */
export function termMatches(text: string, term: string): boolean {
  if (!isShortTerm(term)) return text.includes(term);
  return text.split(WORD_SEPARATORS).some((word) => word.startsWith(term));
}

export function matchesQuery(pkg: RankedPackage, query: SearchQuery): boolean {
  if (query.insecure) return false;
  for (const term of query.terms) {
    if (!TERM_FIELDS.some((field) => termMatches(pkg.texts[field], term))) return false;
  }
  if (query.keywords.include.length > 0 && !query.keywords.include.some((k) => pkg.keywords.includes(k))) return false;
  if (query.keywords.exclude.some((k) => pkg.keywords.includes(k))) return false;
  if (!query.authors.every((a) => pkg.texts.author.includes(a))) return false;
  if (!query.maintainers.every((m) => pkg.maintainers.includes(m))) return false;
  if (query.deprecated !== undefined && pkg.deprecated !== query.deprecated) return false;
  if (query.unstable !== undefined && pkg.unstable !== query.unstable) return false;
  if (query.engines && !query.engines.every((e) => pkg.engines.includes(e))) return false;
  return true;
}

/** The tier of a matching package; a short term counts in a field only where it starts a part. */
export function relevanceTier(pkg: Pick<RankedPackage, 'texts' | 'keywords'>, terms: readonly string[]): number {
  const { texts } = pkg;
  if (terms.length === 0) return TIER.TEXT;
  const phrase = terms.join(' ');
  if (texts.name === phrase || (texts.displayName.length > 0 && texts.displayName === phrase)) return TIER.EXACT_NAME;
  const startsName = (t: string) => startsPart(texts.name, t) || startsPart(texts.displayName, t);
  const inName = (t: string) => (isShortTerm(t) ? startsName(t) : texts.name.includes(t) || texts.displayName.includes(t));
  const inKeywords = (t: string) =>
    isShortTerm(t) ? pkg.keywords.some((k) => k.startsWith(t)) : pkg.keywords.some((k) => k.includes(t));
  if (terms.every(startsName)) return TIER.NAME_PART;
  if (terms.every(inName)) return TIER.NAME;
  if (terms.every((t) => inName(t) || inKeywords(t))) return TIER.KEYWORDS;
  return TIER.TEXT;
}

function startsPart(text: string, term: string): boolean {
  return text.startsWith(term) || PART_SEPARATORS.some((sep) => text.includes(sep + term));
}

/** The sort key of a hit: not deprecated first, then tier, then `score.final` (high first), then name. */
export interface RankKey {
  deprecated: boolean;
  tier: number;
  final: number;
  name: string;
}

export function compareRank(a: RankKey, b: RankKey): number {
  if (a.deprecated !== b.deprecated) return a.deprecated ? 1 : -1;
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.final !== b.final) return b.final - a.final;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * `searchScore` in [0, 1], decreasing along the result order: (4 − tier + final) / 5, mapped
 * to [0.1, 1] for live packages and to [0, 0.1] for deprecated ones (which rank last).
 */
export function searchScore(key: Pick<RankKey, 'deprecated' | 'tier' | 'final'>): number {
  const base = (TIER.TEXT - key.tier + key.final) / (TIER.TEXT + 1);
  const score = key.deprecated ? 0.1 * base : 0.1 + 0.9 * base;
  return Math.round(score * 1e6) / 1e6;
}

/** The reference search: every match of `query` in `packages`, in result order. */
export function rankPackages(packages: readonly RankedPackage[], query: SearchQuery): RankedPackage[] {
  return packages
    .filter((pkg) => matchesQuery(pkg, query))
    .map((pkg) => ({ pkg, key: { ...pkg, tier: relevanceTier(pkg, query.terms) } }))
    .sort((a, b) => compareRank(a.key, b.key))
    .map(({ pkg }) => pkg);
}
