import type { WeekCount } from '../catalog.js';
import { downloadChart } from '../download-chart.js';
import { html } from '../html.js';
import type { PackageView } from '../package-view.js';
import { layout } from './layout.js';
import { dependencySections, factsSection } from './package/facts-section.js';
import { installSection } from './package/install-section.js';
import { readmeSection } from './package/readme-section.js';
import { distTagsSection, versionsSection } from './package/versions-section.js';
import type { PageContext } from './page-context.js';
import { timeElement } from './relative-time.js';
import { packagePath } from './urls.js';

/**
 * A package at one version. The readme comes first and the sidebar after it, in the source as
 * on the screen (left column, then right), so keyboard focus follows what the eye reads; a link
 * at the top jumps to the install lines, which on a phone come after the readme. Each concern
 * is a section of its own (package/), so the page grows by adding sections.
 */
export function packagePage(ctx: PageContext, view: PackageView, downloads: WeekCount[]): string {
  const weekly = downloads.at(-1)?.downloads ?? 0;
  const body = html`<div class="package-head">
      <h1><bdi>${view.displayName ?? view.name}</bdi></h1>
      <p class="meta">
        ${view.displayName ? html`<code>${view.name}</code> · ` : ''}${view.version}${
          view.version === view.latest
            ? html` <span class="tag">latest</span>`
            : html` · <a href="${packagePath(view.name)}">latest is ${view.latest}</a>`
        }${view.published ? html` · published ${timeElement(view.published, ctx.now)}` : ''}
      </p>
      ${view.description ? html`<p dir="auto">${view.description}</p>` : ''}
      ${view.deprecated ? html`<div class="deprecated" role="note"><strong>Deprecated.</strong> <bdi>${view.deprecated}</bdi></div>` : ''}
      <p class="jump"><a href="#install-h">Install instructions</a></p>
    </div>
    <div class="layout">
      ${readmeSection(view)}
      <aside aria-label="Package details">
        ${installSection(view.install)} ${factsSection(view, weekly)}
        <section aria-labelledby="downloads-h">
          <h2 id="downloads-h">Downloads</h2>
          ${downloadChart(downloads)}
        </section>
        ${dependencySections(view)} ${distTagsSection(view)} ${versionsSection(view, ctx.now)}
      </aside>
    </div>`;
  // Each version has a title of its own.
  return layout(ctx, { title: `${view.displayName ?? view.name} ${view.version}`, body, copyScript: true });
}
