/**
 * A tiny HTML template helper: every interpolated value is escaped unless it is already
 * `SafeHtml` (built by `html` itself, or sanitized output marked with `trustedHtml`).
 * Attribute values must always be quoted in templates; escaping covers both quote kinds.
 */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Tagged template: `html\`<p>${text}</p>\`` escapes `text`. `false`, null and undefined render nothing. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Marks markup produced by a sanitizer (the readme renderer) as safe to insert. */
export function trustedHtml(value: string): SafeHtml {
  return new SafeHtml(value);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** An http(s) URL fit for an href, or undefined (javascript:, data:, relative junk, unparsable). */
export function safeHttpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
