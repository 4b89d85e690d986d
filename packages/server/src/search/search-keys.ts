/**
 * The keys both database drivers store beside a package for search to match with plain string
 * tests: a name split into marked parts, keyword and maintainer lists between marks. Shared by
 * the SQLite and PostgreSQL drivers (each builds its own SQL around them).
 */
import { PART_SEPARATORS } from './relevance.js';

/** Marks the start of a name part in `parts_key`, and separates keywords and maintainers. */
export const PART_MARK = '\x1f';
/** Joins the name and displayName halves of `parts_key`; a term never contains it. */
export const HALF_MARK = '\x1e';

/**
 * `parts_key` of a name or displayName: the text with PART_MARK at the start of every part
 * (the start, and after each separator), so "starts a part" and "occurs" both become a plain
 * `instr` with the term marked the same way (markTerm).
 */
export function partsKey(name: string, displayName: string): string {
  return markText(name) + HALF_MARK + (displayName.length > 0 ? markText(displayName) : '');
}

function markText(text: string): string {
  return PART_MARK + markSeparators(text);
}

/** The term as it appears inside `parts_key`: a PART_MARK after each of its separators. */
export function markTerm(term: string): string {
  return markSeparators(term);
}

function markSeparators(text: string): string {
  let out = '';
  for (const ch of text) {
    out += ch;
    if ((PART_SEPARATORS as readonly string[]).includes(ch)) out += PART_MARK;
  }
  return out;
}

/**
 * What marks `engine` in a search object's serialized JSON (`package_json`, which both drivers
 * store): `"engine":"godot"`. JSON escapes every quote inside a string value, so no author's
 * text can contain it; only the object's `engines` list does.
 */
export function engineJsonKey(engine: string): string {
  return `"engine":${JSON.stringify(engine)}`;
}

/** A list as stored in `keywords_key` / `maintainers_key`: every item between marks. */
export function listKey(items: readonly string[]): string {
  return items.length === 0 ? '' : PART_MARK + items.join(PART_MARK) + PART_MARK;
}
