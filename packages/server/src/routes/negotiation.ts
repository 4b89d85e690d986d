import { ABBREVIATED_ACCEPT } from '@pkg/protocol';
import { CONTENT_CODINGS, type ContentCoding } from '../services/representation.js';

/** `a;q=0.5, b` → [{value: 'a', q: 0.5}, {value: 'b', q: 1}], lowercased, bad q values as 0. */
function parseQualityList(header: string | string[] | undefined): { value: string; q: number }[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const items: { value: string; q: number }[] = [];
  for (const part of text.split(',')) {
    const [rawValue, ...params] = part.split(';');
    const value = rawValue?.trim().toLowerCase();
    if (!value) continue;
    let q = 1;
    for (const param of params) {
      const [key, raw] = param.split('=').map((s) => s.trim());
      if (key?.toLowerCase() === 'q') {
        const parsed = Number(raw);
        q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
      }
    }
    items.push({ value, q });
  }
  return items;
}

/**
 * True when the client asks for npm's abbreviated document: it lists the install type with a
 * quality at least that of plain JSON (npm, pnpm: `vnd.npm.install-v1+json; q=1.0,
 * application/json; q=0.8, *\/*`).
 */
export function wantsAbbreviated(accept: string | string[] | undefined): boolean {
  return memoized(abbreviatedAnswers, accept, decideAbbreviated);
}

function decideAbbreviated(accept: string | string[] | undefined): boolean {
  const items = parseQualityList(accept);
  const abbreviated = items.find((item) => item.value === ABBREVIATED_ACCEPT);
  if (!abbreviated || abbreviated.q === 0) return false;
  const json = items.find((item) => item.value === 'application/json');
  return json === undefined || abbreviated.q >= json.q;
}

/** The best content coding the client accepts, or undefined for identity. */
export function negotiateCoding(acceptEncoding: string | string[] | undefined): ContentCoding | undefined {
  return memoized(codingAnswers, acceptEncoding, decideCoding);
}

/**
 * Clients send a handful of distinct Accept and Accept-Encoding values, each on every request:
 * the answer for each is kept (a bounded number of them) instead of parsing it again.
 */
const MEMO_SIZE = 256;
const abbreviatedAnswers = new Map<string, boolean>();
const codingAnswers = new Map<string, ContentCoding | undefined>();

function memoized<T>(
  answers: Map<string, T>,
  header: string | string[] | undefined,
  decide: (header: string | string[] | undefined) => T,
): T {
  // No header at all reads as an empty one.
  const key = header === undefined ? '' : header;
  if (typeof key !== 'string') return decide(key);
  if (answers.has(key)) return answers.get(key) as T;
  const answer = decide(key);
  if (key.length <= 512) {
    if (answers.size >= MEMO_SIZE) answers.clear();
    answers.set(key, answer);
  }
  return answer;
}

function decideCoding(acceptEncoding: string | string[] | undefined): ContentCoding | undefined {
  const items = parseQualityList(acceptEncoding);
  const wildcard = items.find((item) => item.value === '*');
  let best: { coding: ContentCoding; q: number } | undefined;
  for (const coding of CONTENT_CODINGS) {
    const listed = items.find((item) => item.value === coding || (coding === 'gzip' && item.value === 'x-gzip'));
    const q = listed?.q ?? wildcard?.q ?? 0;
    if (q > 0 && (best === undefined || q > best.q)) best = { coding, q };
  }
  return best?.coding;
}
