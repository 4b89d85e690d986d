/**
 * search/relevance.ts in PostgreSQL: a parsed query becomes one page statement and one count
 * statement. Terms of three characters or more are substrings (`LIKE '%term%'`, served by a
 * pg_trgm trigram index); shorter terms start a word (a prefix query on a tsvector of the
 * words, served by a GIN full-text index). The tiers are the SQLite driver's, over the same
 * stored keys.
 */
import { isShortTerm, TIER } from '../../../search/relevance.js';
import type { SearchQuery } from '../../../search/search-query.js';
import { engineJsonKey, listKey, markTerm, PART_MARK } from '../../../search/search-keys.js';

/** Words are runs of letters and digits (search/relevance.ts), the unit of short-term matches. */
const WORD_SEPARATORS = /[^\p{L}\p{N}\p{Co}]+/u;
/** Only a word's start matters to a short term; longer words are cut (tsvector lexemes are bounded). */
const MAX_WORD_LENGTH = 64;
/** Separates the fields in `search_text`; a term never holds a control character. */
export const FIELD_MARK = '\x1e';

export interface CompiledSearch {
  /**
   * `$1` is the tenant; the caller binds the page's size and offset after `params`. Each row
   * has `total`, the number of matches.
   */
  pageSql: string;
  params: unknown[];
  /** The number of matches, for a page past the last one (it has no rows to tell it). */
  countSql: string;
  /** The count binds only the filter's values. */
  countParams: unknown[];
}

/** The words of the searchable texts, for the full-text index. */
export function searchWords(texts: readonly string[]): string[] {
  const words = new Set<string>();
  for (const text of texts) {
    for (const word of text.split(WORD_SEPARATORS)) if (word.length > 0) words.add(word.slice(0, MAX_WORD_LENGTH));
  }
  return [...words];
}

export function compileSearch(tenant: string, query: SearchQuery): CompiledSearch {
  const params: unknown[] = [tenant];
  const bind = (value: unknown) => `$${params.push(value)}`;
  const where = ['p.tenant = $1'];

  for (const term of query.terms) {
    if (isShortTerm(term)) where.push(`p.words @@ ${bind(prefixQuery(term))}::tsquery`);
    else where.push(`p.search_text LIKE ${bind(`%${escapeLike(term)}%`)}`);
  }
  const include = query.keywords.include;
  if (include.length > 0) {
    where.push(`(${include.map((keyword) => `strpos(p.keywords_key, ${bind(listKey([keyword]))}) > 0`).join(' OR ')})`);
  }
  for (const keyword of query.keywords.exclude) where.push(`strpos(p.keywords_key, ${bind(listKey([keyword]))}) = 0`);
  for (const author of query.authors) where.push(`strpos(p.author_lc, ${bind(author)}) > 0`);
  for (const maintainer of query.maintainers) where.push(`strpos(p.maintainers_key, ${bind(listKey([maintainer]))}) > 0`);
  if (query.deprecated !== undefined) where.push(query.deprecated ? 'p.deprecated' : 'NOT p.deprecated');
  if (query.unstable !== undefined) where.push(query.unstable ? 'p.unstable' : 'NOT p.unstable');
  // The engines are in the stored search object (search-keys.ts engineJsonKey).
  for (const engine of query.engines ?? []) where.push(`strpos(p.package_json, ${bind(engineJsonKey(engine))}) > 0`);

  const filter = `FROM search_packages p WHERE ${where.join(' AND ')}`;
  const countParams = [...params];
  const tier = tierSql(query.terms, bind);
  const [limit, offset] = [`$${params.length + 1}`, `$${params.length + 2}`];
  // Every match is ranked, but only its sort keys are kept (a query may match most of the
  // registry); the page's rows are then read by key, and the matches counted from the same
  // scan rather than by a second one.
  const pageSql = `WITH matches AS MATERIALIZED (SELECT p.name, ${tier} AS tier, p.deprecated, p.final ${filter})
    SELECT m.tier, p.name, p.deprecated_message, p.unstable, p.final, p.quality, p.popularity, p.maintenance,
      p.downloads_week, p.downloads_month, p.updated, p.modified, p.package_json, (SELECT count(*) FROM matches) AS total
    FROM (SELECT * FROM matches ORDER BY deprecated, tier, final DESC, name COLLATE "C" LIMIT ${limit} OFFSET ${offset}) m
    JOIN search_packages p ON p.tenant = $1 AND p.name = m.name
    ORDER BY m.deprecated, m.tier, m.final DESC, m.name COLLATE "C"`;
  return { pageSql, params, countSql: `SELECT count(*) AS total ${filter}`, countParams };
}

/** relevanceTier() of search/relevance.ts as a CASE expression over the stored keys. */
function tierSql(terms: readonly string[], bind: (value: unknown) => string): string {
  if (terms.length === 0) return String(TIER.TEXT);
  const phrase = bind(terms.join(' '));
  const starts: string[] = [];
  const inName: string[] = [];
  const inKeywords: string[] = [];
  for (const term of terms) {
    const startsPart = PART_MARK + markTerm(term);
    starts.push(`strpos(p.parts_key, ${bind(startsPart)}) > 0`);
    // A short term counts only where it starts a part, of the name or of a keyword.
    const name = `strpos(p.parts_key, ${bind(isShortTerm(term) ? startsPart : markTerm(term))}) > 0`;
    inName.push(name);
    inKeywords.push(`(${name} OR strpos(p.keywords_key, ${bind(isShortTerm(term) ? PART_MARK + term : term)}) > 0)`);
  }
  return `CASE
      WHEN p.name = ${phrase} OR p.display_lc = ${phrase} THEN ${TIER.EXACT_NAME}
      WHEN ${starts.join(' AND ')} THEN ${TIER.NAME_PART}
      WHEN ${inName.join(' AND ')} THEN ${TIER.NAME}
      WHEN ${inKeywords.join(' AND ')} THEN ${TIER.KEYWORDS}
      ELSE ${TIER.TEXT} END`;
}

/** A tsquery matching lexemes that start with `term`, quoted so any input is a literal. */
function prefixQuery(term: string): string {
  return `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}':*`;
}

/** `term` as a literal inside a LIKE pattern (backslash is LIKE's default escape). */
function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
