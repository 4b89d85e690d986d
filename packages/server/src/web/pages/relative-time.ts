import { html, type SafeHtml } from '../html.js';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** `3 days ago`, `yesterday`, `last month`; `just now` under a minute. */
export function timeAgo(iso: string, now: Date): string {
  const seconds = (Date.parse(iso) - now.getTime()) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** `2024-03-01 10:00 UTC`: the exact time, shown on hover. */
export function exactTime(iso: string): string {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? '' : `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A `<time>` reading "3 days ago", with the exact time in its title (hover) and `datetime`; '' for no time. */
export function timeElement(iso: string | undefined, now: Date | undefined): SafeHtml | '' {
  if (!iso || Number.isNaN(Date.parse(iso))) return '';
  return html`<time datetime="${iso}" title="${exactTime(iso)}">${timeAgo(iso, now ?? new Date())}</time>`;
}
