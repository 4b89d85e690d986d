import type { WeekCount } from './catalog.js';
import { html, type SafeHtml } from './html.js';

// The plot area and the margins around it that hold the axes' labels.
const PLOT_WIDTH = 260;
const PLOT_HEIGHT = 64;
const LEFT = 34;
const TOP = 8;
const BOTTOM = 30;
const GAP = 2;
const WIDTH = LEFT + PLOT_WIDTH + 4;
const HEIGHT = TOP + PLOT_HEIGHT + BOTTOM;

const count = (n: number) => n.toLocaleString('en-US');
const downloads = (n: number) => `${count(n)} ${n === 1 ? 'download' : 'downloads'}`;

/**
 * Weekly downloads as a small inline SVG bar chart: bars on a baseline, the y axis labelled
 * (0 and the busiest week's count, "per week") and the x axis (the first and the last week):
 * no script, no style attributes (the stylesheet colours it, so the CSP needs no
 * 'unsafe-inline'), a text summary for screen readers and a tooltip per bar.
 */
export function downloadChart(weeks: WeekCount[]): SafeHtml {
  const total = weeks.reduce((sum, w) => sum + w.downloads, 0);
  if (weeks.length === 0 || total === 0) {
    return html`<p class="muted">No downloads counted in the last weeks.</p>`;
  }
  const max = Math.max(...weeks.map((w) => w.downloads));
  const barWidth = (PLOT_WIDTH - GAP * (weeks.length - 1)) / weeks.length;
  const baseline = TOP + PLOT_HEIGHT;
  const bars = weeks.map((w, i) => {
    const height = Math.max(w.downloads > 0 ? 2 : 0, Math.round((w.downloads / max) * (PLOT_HEIGHT - 2)));
    const x = round(LEFT + i * (barWidth + GAP));
    return html`<rect x="${x}" y="${baseline - height}" width="${round(barWidth)}" height="${height}"
      ><title>Week of ${w.week}: ${downloads(w.downloads)}</title></rect
    >`;
  });
  const last = weeks.at(-1)!;
  const summary = `${downloads(total)} in the last ${weeks.length} weeks, ${count(last.downloads)} this week`;
  return html`<figure class="chart">
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width="${WIDTH}"
      height="${HEIGHT}"
      role="img"
      aria-label="${summary}"
      focusable="false"
    >
      <line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${baseline}" />
      <text class="tick" x="${LEFT - 4}" y="${TOP + 4}" text-anchor="end">${count(max)}</text>
      <text class="tick" x="${LEFT - 4}" y="${baseline}" text-anchor="end">0</text>
      <text class="axis-label" x="${LEFT - 4}" y="${TOP + PLOT_HEIGHT / 2 + 3}" text-anchor="end">per week</text>
      ${bars}
      <line class="baseline" x1="${LEFT}" y1="${baseline}" x2="${LEFT + PLOT_WIDTH}" y2="${baseline}" />
      <text class="tick" x="${LEFT}" y="${baseline + 12}">${weeks[0]!.week}</text>
      <text class="tick" x="${LEFT + PLOT_WIDTH}" y="${baseline + 12}" text-anchor="end">${last.week}</text>
      <text class="axis-label" x="${LEFT + PLOT_WIDTH / 2}" y="${baseline + 26}" text-anchor="middle">week starting</text>
    </svg>
    <figcaption>${summary}</figcaption>
  </figure>`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
