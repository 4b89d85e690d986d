/**
 * The `text` of `GET /-/v1/search`, parsed: free-text terms plus npm's qualifiers
 * (`keywords:`, `author:`, `maintainer:`, `is:`/`not:`) and ours, `engine:unity|godot|unreal`. Pure; bad input is a 400.
 */
import { ProtocolError } from '@pkg/protocol';
import { isShortTerm } from './relevance.js';
import { SEARCH_ENGINES, type SearchEngine, type SearchQuery } from './search-types.js';

export type { SearchQuery };

export const MAX_TEXT_LENGTH = 512;
export const MAX_TERMS = 16;

const FLAGS = ['deprecated', 'unstable', 'insecure'] as const;

export function parseSearchText(text: string): SearchQuery {
  // Control characters are never part of a term (the index uses some as separators).
  // eslint-disable-next-line no-control-regex
  const trimmed = text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (trimmed.length === 0) throw new ProtocolError('BAD_REQUEST', 'The search text must not be empty');
  if (trimmed.length > MAX_TEXT_LENGTH) {
    throw new ProtocolError('BAD_REQUEST', `The search text must be at most ${MAX_TEXT_LENGTH} characters`);
  }
  const query: SearchQuery = { terms: [], keywords: { include: [], exclude: [] }, authors: [], maintainers: [] };
  let parts = 0;
  for (const token of trimmed.split(/\s+/)) {
    const colon = token.indexOf(':');
    const qualifier = colon > 0 ? token.slice(0, colon).toLowerCase() : '';
    const value = colon > 0 ? token.slice(colon + 1) : '';
    switch (qualifier) {
      case 'keywords':
      case 'keyword':
        for (const raw of requireValue(qualifier, value).split(',')) {
          const keyword = raw.trim().toLowerCase();
          if (keyword.startsWith('-') && keyword.length > 1) query.keywords.exclude.push(keyword.slice(1));
          else if (keyword.length > 0 && keyword !== '-') query.keywords.include.push(keyword);
          parts++;
        }
        break;
      case 'author':
        query.authors.push(requireValue(qualifier, value).toLowerCase());
        parts++;
        break;
      case 'maintainer':
        query.maintainers.push(requireValue(qualifier, value).toLowerCase());
        parts++;
        break;
      case 'is':
      case 'not': {
        const flag = requireValue(qualifier, value).toLowerCase();
        if (!(FLAGS as readonly string[]).includes(flag)) {
          throw new ProtocolError('BAD_REQUEST', `Unknown qualifier '${qualifier}:${flag}'; known: is:/not: ${FLAGS.join(', ')}`);
        }
        if (flag === 'insecure') {
          if (qualifier === 'is') query.insecure = true;
        } else query[flag as 'deprecated' | 'unstable'] = qualifier === 'is';
        break;
      }
      case 'engine': {
        const engine = requireValue(qualifier, value).toLowerCase();
        if (!(SEARCH_ENGINES as readonly string[]).includes(engine)) {
          throw new ProtocolError('BAD_REQUEST', `Unknown engine 'engine:${engine}'; known: ${SEARCH_ENGINES.join(', ')}`);
        }
        query.engines = [...new Set([...(query.engines ?? []), engine as SearchEngine])];
        parts++;
        break;
      }
      case 'boost-exact':
        // npm's switch for its exact-name boost; an exact name always ranks first here.
        break;
      default: {
        let term = stripQuotes(token).toLowerCase();
        // A short term matches word starts, where only letters and digits count.
        if (isShortTerm(term)) term = term.replace(/[^\p{L}\p{N}\p{Co}]/gu, '');
        if (term.length > 0) {
          query.terms.push(term);
          parts++;
        }
      }
    }
    if (parts > MAX_TERMS) throw new ProtocolError('BAD_REQUEST', `The search text may hold at most ${MAX_TERMS} terms`);
  }
  const filters = query.deprecated !== undefined || query.unstable !== undefined || query.insecure !== undefined;
  if (parts === 0 && !filters) {
    throw new ProtocolError('BAD_REQUEST', 'The search text holds nothing to search for (no word of a letter or digit)');
  }
  return query;
}

function requireValue(qualifier: string, value: string): string {
  const trimmed = stripQuotes(value);
  if (trimmed.length === 0) throw new ProtocolError('BAD_REQUEST', `The qualifier '${qualifier}:' needs a value`);
  return trimmed;
}

function stripQuotes(value: string): string {
  return value.replace(/^["']+|["']+$/g, '').trim();
}

export const DEFAULT_SIZE = 20;
export const MAX_SIZE = 250;
/** Deeper pages are refused: no client pages this far, and each costs a scan of all matches. */
export const MAX_FROM = 100_000;

export interface SearchRequest {
  query: SearchQuery;
  size: number;
  from: number;
}

/**
 * The query string of `GET /-/v1/search` as the request parsed it (fast-querystring). A repeated parameter, a missing
 * or empty `text`, and a `size`/`from` that is not a whole number in range are all 400s.
 */
export function parseSearchRequest(raw: Record<string, unknown>): SearchRequest {
  const text = single(raw, 'text');
  if (text === undefined) throw new ProtocolError('BAD_REQUEST', "The query parameter 'text' is required");
  return {
    query: parseSearchText(text),
    size: wholeNumber(raw, 'size', DEFAULT_SIZE, MAX_SIZE),
    from: wholeNumber(raw, 'from', 0, MAX_FROM),
  };
}

function single(raw: Record<string, unknown>, name: string): string | undefined {
  const value = raw[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ProtocolError('BAD_REQUEST', `The query parameter '${name}' must be given once`);
  return value;
}

function wholeNumber(raw: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const value = single(raw, name);
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) > max) {
    throw new ProtocolError('BAD_REQUEST', `The query parameter '${name}' must be a whole number from 0 to ${max}`);
  }
  return Number(value);
}
