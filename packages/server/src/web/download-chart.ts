import type { WeekCount } from './catalog.js';
import { html, type SafeHtml } from './html.js';

const WIDTH = 260;
const HEIGHT = 64;
const GAP = 2;

/**
 * Weekly downloads as a small inline SVG bar chart: no script, no style attributes (the
 * stylesheet colours it, so the CSP needs no 'unsafe-inline'), a text summary for screen
 * readers and a tooltip per bar.
 */
export function downloadChart(weeks: WeekCount[]): SafeHtml {
  const total = weeks.reduce((sum, w) => sum + w.downloads, 0);
  if (weeks.length === 0 || total === 0) {
    return html`<p class="muted">No downloads counted in the last weeks.</p>`;
  }
  const max = Math.max(...weeks.map((w) => w.downloads));
  const barWidth = (WIDTH - GAP * (weeks.length - 1)) / weeks.length;
  const bars = weeks.map((w, i) => {
    const height = Math.max(w.downloads > 0 ? 2 : 0, Math.round((w.downloads / max) * (HEIGHT - 2)));
    const x = round(i * (barWidth + GAP));
    return html`<rect x="${x}" y="${HEIGHT - height}" width="${round(barWidth)}" height="${height}"
      ><title>Week of ${w.week}: ${w.downloads.toLocaleString('en-US')} downloads</title></rect
    >`;
  });
  const last = weeks.at(-1)!;
  const summary = `${total.toLocaleString('en-US')} downloads in the last ${weeks.length} weeks, ${last.downloads.toLocaleString('en-US')} this week`;
  return html`<figure class="chart">
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width="${WIDTH}"
      height="${HEIGHT}"
      role="img"
      aria-label="${summary}"
      focusable="false"
    >
      ${bars}
    </svg>
    <figcaption>${summary}</figcaption>
  </figure>`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
