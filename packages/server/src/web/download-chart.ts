import type { WeekCount } from './catalog.js';
import { html, type SafeHtml } from './html.js';

// The plot area: the SVG draws only bars and axes; every text is HTML around it, so that it
// never scales below the page's font size when the chart shrinks to a phone's width.
const PLOT_WIDTH = 260;
const PLOT_HEIGHT = 64;
const GAP = 2;

const count = (n: number) => n.toLocaleString('en-US');
const downloads = (n: number) => `${count(n)} ${n === 1 ? 'download' : 'downloads'}`;

/**
 * Weekly downloads as a small bar chart: an inline SVG of bars on a baseline (no script, no
 * style attributes: the stylesheet colours it, so the CSP needs no 'unsafe-inline'), with the
 * busiest week's count above the y axis and the first and last weeks below in HTML text. A
 * screen reader hears the caption's summary once: the drawing and its labels are hidden from it.
 */
export function downloadChart(weeks: WeekCount[]): SafeHtml {
  const total = weeks.reduce((sum, w) => sum + w.downloads, 0);
  if (weeks.length === 0 || total === 0) {
    return html`<p class="muted">No downloads counted in the last weeks.</p>`;
  }
  const max = Math.max(...weeks.map((w) => w.downloads));
  const barWidth = (PLOT_WIDTH - GAP * (weeks.length - 1)) / weeks.length;
  const bars = weeks.map((w, i) => {
    const height = Math.max(w.downloads > 0 ? 2 : 0, Math.round((w.downloads / max) * (PLOT_HEIGHT - 2)));
    const x = round(i * (barWidth + GAP));
    return html`<rect x="${x}" y="${PLOT_HEIGHT - height}" width="${round(barWidth)}" height="${height}"
      ><title>Week of ${w.week}: ${downloads(w.downloads)}</title></rect
    >`;
  });
  const last = weeks.at(-1)!;
  const summary = `${downloads(total)} in the last ${weeks.length} weeks, ${count(last.downloads)} this week`;
  return html`<figure class="chart">
    <p class="chart-max" aria-hidden="true">${count(max)} per week at most</p>
    <svg
      viewBox="0 0 ${PLOT_WIDTH} ${PLOT_HEIGHT}"
      width="${PLOT_WIDTH}"
      height="${PLOT_HEIGHT}"
      aria-hidden="true"
      focusable="false"
    >
      ${bars}
      <line class="baseline" x1="0" y1="${PLOT_HEIGHT}" x2="${PLOT_WIDTH}" y2="${PLOT_HEIGHT}" />
    </svg>
    <p class="chart-weeks" aria-hidden="true">
      <span>${weeks[0]!.week}</span><span>weeks starting</span><span>${last.week}</span>
    </p>
    <figcaption>${summary}</figcaption>
  </figure>`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
