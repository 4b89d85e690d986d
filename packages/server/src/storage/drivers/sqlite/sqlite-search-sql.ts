/**
 * search/relevance.ts in SQLite: a parsed query becomes one page statement and one count
 * statement over two FTS5 indexes (trigrams for substrings, word prefixes for short terms) and
 * the `search_packages` rows. The SQL text depends
 * only on the query's shape (how many terms, which qualifiers), so statements are prepared once
 * per shape; the values are bound.
 */
import type { SearchQuery } from '../../../search/search-types.js';
import { isShortTerm, TIER } from '../../../search/relevance.js';
import { engineJsonKey, listKey, markTerm, PART_MARK } from '../../../search/search-keys.js';

const TEXT_COLUMNS = '{name display keywords description author}';
/** A value the word index holds as one token: letters and digits only. */
const WORD = /^[\p{L}\p{N}\p{Co}]+$/u;
/** A term the word index surely holds as one token, whatever its Unicode tables. */
const PLAIN_WORD = /^[a-z0-9]+$/;

export interface CompiledSearch {
  /** The statements' shape: equal keys, equal SQL. */
  key: string;
  /** `@lo`/`@hi` (the tenant's id range), `@limit` and `@offset` are bound by the caller. */
  pageSql: string;
  countSql: string;
  /**
   * Shortcuts, tried in order: each gives the page among live packages of the first tiers
   * only. The first that comes back full is the page (those packages come first); when none
   * does, `pageSql` gives it.
   */
  firstPages: string[];
  params: Record<string, string>;
}

/**
 * Every tenant owns one range of row ids, so the FTS indexes can be restricted to a tenant by
 * rowid alone, without reading the rows (a count of matches then never leaves the index).
 */
export const TENANT_ID_SPAN = 2 ** 32;

export function tenantIdRange(tenantNumber: number): { lo: number; hi: number } {
  return { lo: tenantNumber * TENANT_ID_SPAN + 1, hi: (tenantNumber + 1) * TENANT_ID_SPAN - 1 };
}

export function compileSearch(query: SearchQuery): CompiledSearch {
  const params: Record<string, string> = {};
  const trigrams: string[] = [];
  const words: string[] = [];
  // The first entry stands for the tenant restriction, replaced below by the id range.
  const where: string[] = ['tenant'];
  const shape: string[] = [];

  query.terms.forEach((term, i) => {
    params[`t${i}`] = term;
    if (isShortTerm(term)) {
      words.push(`${TEXT_COLUMNS} : ${phrase(term)}*`);
      shape.push('w');
    } else {
      trigrams.push(`${TEXT_COLUMNS} : ${phrase(term)}`);
      shape.push('T');
    }
  });

  // Qualifiers are checked exactly on the row; the indexes only narrow the rows to check.
  const include = query.keywords.include;
  if (include.length > 0) {
    include.forEach((keyword, i) => (params[`k${i}`] = listKey([keyword])));
    where.push(`(${include.map((_, i) => `instr(p.keywords_key, @k${i}) > 0`).join(' OR ')})`);
    const narrow = narrowing(include);
    if (narrow === 'trigram') trigrams.push(`(${include.map((k) => `{keywords} : ${phrase(k)}`).join(' OR ')})`);
    if (narrow === 'words') words.push(`(${include.map((k) => `{keywords} : ${phrase(k)}*`).join(' OR ')})`);
    shape.push(`k${include.length}${narrow ?? ''}`);
  }
  query.keywords.exclude.forEach((keyword, i) => {
    params[`x${i}`] = listKey([keyword]);
    where.push(`instr(p.keywords_key, @x${i}) = 0`);
    shape.push('x');
  });
  query.authors.forEach((author, i) => {
    params[`a${i}`] = author;
    where.push(`instr(p.author_lc, @a${i}) > 0`);
    // A substring of the author: only the trigram index can narrow it.
    if (!isShortTerm(author)) trigrams.push(`{author} : ${phrase(author)}`);
    shape.push(isShortTerm(author) ? 'a' : 'A');
  });
  query.maintainers.forEach((maintainer, i) => {
    params[`m${i}`] = listKey([maintainer]);
    where.push(`instr(p.maintainers_key, @m${i}) > 0`);
    const narrow = narrowing([maintainer]);
    if (narrow === 'trigram') trigrams.push(`{maintainers} : ${phrase(maintainer)}`);
    if (narrow === 'words') words.push(`{maintainers} : ${phrase(maintainer)}*`);
    shape.push(`m${narrow ?? ''}`);
  });
  if (query.deprecated !== undefined) {
    where.push(`p.deprecated = ${query.deprecated ? 1 : 0}`);
    shape.push(query.deprecated ? 'D' : 'd');
  }
  if (query.unstable !== undefined) {
    where.push(`p.unstable = ${query.unstable ? 1 : 0}`);
    shape.push(query.unstable ? 'U' : 'u');
  }
  // The engines are in the stored search object (search-keys.ts engineJsonKey), read by row id.
  (query.engines ?? []).forEach((engine, i) => {
    params[`e${i}`] = engineJsonKey(engine);
    where.push(`EXISTS (SELECT 1 FROM search_documents d WHERE d.id = p.id AND instr(d.package_json, @e${i}) > 0)`);
    shape.push('e');
  });

  // Conditions only the rows can decide; without them the indexes alone count the matches.
  const rowOnly = where.length > 1;
  const rowConditions = where.slice(1);
  let from = 'search_packages p';
  const ranges = ['p.id BETWEEN @lo AND @hi'];
  const countFrom: string[] = [];
  if (trigrams.length > 0) {
    params.trigrams = trigrams.join(' AND ');
    from = 'search_fts JOIN search_packages p ON p.id = search_fts.rowid';
    ranges.splice(0, 1, 'search_fts MATCH @trigrams', 'search_fts.rowid BETWEEN @lo AND @hi');
    countFrom.push('search_fts MATCH @trigrams AND search_fts.rowid BETWEEN @lo AND @hi');
  }
  if (words.length > 0) {
    params.words = words.join(' AND ');
    if (trigrams.length > 0) {
      ranges.push('p.id IN (SELECT rowid FROM search_words WHERE search_words MATCH @words)');
      countFrom.push('search_fts.rowid IN (SELECT rowid FROM search_words WHERE search_words MATCH @words)');
    } else {
      from = 'search_words JOIN search_packages p ON p.id = search_words.rowid';
      ranges.splice(0, 1, 'search_words MATCH @words', 'search_words.rowid BETWEEN @lo AND @hi');
      countFrom.push('search_words MATCH @words AND search_words.rowid BETWEEN @lo AND @hi');
    }
  }
  where.splice(0, 1, ...ranges);

  const tier = tierSql(query.terms, params);
  const filter = `FROM ${from} WHERE ${where.join(' AND ')}`;
  const pageSql = withRows(`SELECT p.id AS id, ${tier} AS tier ${filter}`);
  const countSql =
    rowOnly || countFrom.length === 0
      ? `SELECT count(*) ${filter}`
      : `SELECT count(*) FROM ${trigrams.length > 0 ? 'search_fts' : 'search_words'} WHERE ${countFrom.join(' AND ')}`;
  const compiled: CompiledSearch = { key: shape.join(','), pageSql, countSql, firstPages: [], params };

  // Most searches find names: the live packages whose name or displayName holds the terms
  // (tiers 0 to 2) come before all other matches, and the indexes find them directly. Each
  // shortcut below yields the page among them; when it comes back full it is the page, and
  // the other matches need not be ranked.
  const shortcut = (fts: string, match: string, maxTier: number) =>
    withRows(
      `SELECT p.id AS id, ${tier} AS tier FROM ${fts} JOIN search_packages p ON p.id = ${fts}.rowid WHERE ` +
        [
          `${fts} MATCH ${match}`,
          `${fts}.rowid BETWEEN @lo AND @hi`,
          'p.deprecated = 0',
          `tier <= ${maxTier}`,
          ...rowConditions,
        ].join(' AND '),
    );
  if (query.terms.length > 0 && query.deprecated !== true) {
    // Every term a plain word: a name part starting with each (tiers 0 and 1) is a word of the
    // name or displayName starting with it, which the word index finds by prefix.
    if (query.terms.every((t) => PLAIN_WORD.test(t))) {
      params.nameWords = query.terms.map((t) => `{name display} : ${phrase(t)}*`).join(' AND ');
      compiled.firstPages.push(shortcut('search_words', '@nameWords', TIER.NAME_PART));
      compiled.key += ',W';
    }
    // Every term long enough for trigrams: tiers 0 to 2 are exactly the packages whose name or
    // displayName contains each term.
    if (query.terms.every((t) => !isShortTerm(t))) {
      params.nameTrigrams = query.terms.map((t) => `{name display} : ${phrase(t)}`).join(' AND ');
      compiled.firstPages.push(shortcut('search_fts', '@nameTrigrams', TIER.NAME));
      compiled.key += ',G';
    }
  }
  return compiled;
}

/** A page of `ranked` (ids and tiers, in result order) with what the results show. */
function withRows(ranked: string): string {
  return `WITH page AS (${ranked}
      ORDER BY p.deprecated, tier, p.final DESC, p.name LIMIT @limit OFFSET @offset)
    SELECT page.tier, p.name, p.deprecated_message, p.unstable, p.final, p.quality, p.popularity, p.maintenance,
      p.downloads_week, p.downloads_month, p.updated, p.modified, d.package_json
    FROM page JOIN search_packages p ON p.id = page.id JOIN search_documents d ON d.id = page.id
    ORDER BY p.deprecated, page.tier, p.final DESC, p.name`;
}

/** relevanceTier() of search/relevance.ts as a CASE expression over the stored keys. */
function tierSql(terms: readonly string[], params: Record<string, string>): string {
  if (terms.length === 0) return String(TIER.TEXT);
  params.phrase = terms.join(' ');
  terms.forEach((term, i) => {
    const startsPart = PART_MARK + markTerm(term);
    params[`s${i}`] = startsPart;
    // A short term counts only where it starts a part, of the name or of a keyword.
    params[`n${i}`] = isShortTerm(term) ? startsPart : markTerm(term);
    params[`kw${i}`] = isShortTerm(term) ? PART_MARK + term : term;
  });
  const all = (condition: (i: number) => string) => terms.map((_, i) => condition(i)).join(' AND ');
  return `CASE
      WHEN p.name = @phrase OR p.display_lc = @phrase THEN ${TIER.EXACT_NAME}
      WHEN ${all((i) => `instr(p.parts_key, @s${i}) > 0`)} THEN ${TIER.NAME_PART}
      WHEN ${all((i) => `instr(p.parts_key, @n${i}) > 0`)} THEN ${TIER.NAME}
      WHEN ${all((i) => `(instr(p.parts_key, @n${i}) > 0 OR instr(p.keywords_key, @kw${i}) > 0)`)} THEN ${TIER.KEYWORDS}
      ELSE ${TIER.TEXT} END`;
}

/** Which index can narrow exact values: trigrams (all long), word prefixes (all short words), or none. */
function narrowing(values: readonly string[]): 'trigram' | 'words' | undefined {
  if (values.every((v) => !isShortTerm(v))) return 'trigram';
  if (values.every((v) => isShortTerm(v) && WORD.test(v))) return 'words';
  return undefined;
}

/** An FTS5 string: double quotes doubled, so any input is a literal phrase, never syntax. */
function phrase(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}
