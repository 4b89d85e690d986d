import type { SupportedEngine } from '@pkg/protocol';
import type { WeekCount } from '../catalog.js';
import { downloadChart } from '../download-chart.js';
import { html, type SafeHtml } from '../html.js';
import { isoDate } from '../package-facts.js';
import type { PackageView } from '../package-view.js';
import { renderReadme } from '../readme.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';
import { packagePath, searchPath } from './urls.js';

const ENGINE_NAMES: Record<SupportedEngine['engine'], string> = { unity: 'Unity', godot: 'Godot', unreal: 'Unreal Engine' };

/** `2021.3.0f1 or newer`, `4.2 to 4.3`, `5.3 only`, `any version`. */
function engineVersions(e: SupportedEngine): string {
  if (e.min === undefined) return 'any version';
  if (e.max === undefined) return `${e.min} or newer`;
  return e.max === e.min ? `${e.min} only` : `${e.min} to ${e.max}`;
}

/** Versions listed before the rest is folded away. */
const VERSIONS_SHOWN = 15;

export function packagePage(ctx: PageContext, view: PackageView, downloads: WeekCount[]): string {
  const readme = renderReadme(view.readme);
  const body = html`<div class="package-head">
      <h1>${view.displayName ?? view.name}</h1>
      <p class="meta">
        ${view.displayName ? html`<code>${view.name}</code> · ` : ''}${view.version}${
          view.version === view.latest
            ? html` <span class="tag">latest</span>`
            : html` · <a href="${packagePath(view.name)}">latest is ${view.latest}</a>`
        }${view.published ? html` · published <time datetime="${view.published}">${isoDate(view.published)}</time>` : ''}
      </p>
      ${view.description ? html`<p>${view.description}</p>` : ''}
      ${view.deprecated ? html`<div class="deprecated" role="note"><strong>Deprecated.</strong> ${view.deprecated}</div>` : ''}
    </div>
    <div class="layout">
      <aside aria-label="Package details">
        ${installBox(view)}
        <section aria-labelledby="facts-h">
          <h2 id="facts-h">Details</h2>
          <dl class="facts">
            ${view.engines.map(
              (e) =>
                html`<dt>${ENGINE_NAMES[e.engine]}</dt>
                  <dd>${engineVersions(e)}</dd>`,
            )}
            <dt>License</dt>
            <dd>${view.license || 'none given'}</dd>
            ${
              view.author
                ? html`<dt>Author</dt>
                    <dd>${view.author}</dd>`
                : ''
            }
            <dt>Maintainers</dt>
            <dd>${view.maintainers.length > 0 ? view.maintainers.join(', ') : 'none listed'}</dd>
            ${
              view.repository
                ? html`<dt>Repository</dt>
                    <dd>
                      <a href="${view.repository}" rel="nofollow ugc noopener noreferrer"
                        >${view.repository.replace(/^https?:\/\//, '')}</a
                      >
                    </dd>`
                : ''
            }
            ${
              view.homepage
                ? html`<dt>Homepage</dt>
                    <dd>
                      <a href="${view.homepage}" rel="nofollow ugc noopener noreferrer"
                        >${view.homepage.replace(/^https?:\/\//, '')}</a
                      >
                    </dd>`
                : ''
            }
          </dl>
          ${
            view.keywords.length > 0
              ? html`<ul class="keywords" aria-label="Keywords">
                  ${view.keywords.map((k) => html`<li><a href="${searchPath(k)}">${k}</a></li>`)}
                </ul>`
              : ''
          }
        </section>
        <section aria-labelledby="downloads-h">
          <h2 id="downloads-h">Downloads</h2>
          ${downloadChart(downloads)}
        </section>
        <section aria-labelledby="deps-h">
          <h2 id="deps-h">Dependencies</h2>
          ${dependencies(view)}
        </section>
        <section aria-labelledby="tags-h">
          <h2 id="tags-h">Dist-tags</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              ${view.distTags.map(
                ([tag, version]) =>
                  html`<tr>
                    <td>${tag}</td>
                    <td><a href="${packagePath(view.name, version)}">${version}</a></td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </section>
      </aside>
      <article class="readme" aria-labelledby="readme-h">
        <h2 id="readme-h" class="visually-hidden">Readme</h2>
        ${readme ?? html`<p class="muted">This package has no readme.</p>`}
      </article>
      <section aria-labelledby="versions-h">
        <h2 id="versions-h">Versions (${view.versions.length})</h2>
        ${versionTable(view)}
      </section>
    </div>`;
  return layout(ctx, { title: view.displayName ?? view.name, body, copyScript: true });
}

function installBox(view: PackageView): SafeHtml {
  return html`<section aria-labelledby="install-h" class="install">
    <h2 id="install-h">Install</h2>
    ${view.install.commands.map((c) => {
      // Unity's line keeps the id it always had; the others are named after their engine.
      const id = c.engine === 'unity' ? 'install-command' : `install-command-${c.engine}`;
      return html`<div class="copyable">
        <div class="copy-row">
          <h3 id="${id}-h">${view.install.commands.length > 1 ? c.label : 'With pkg'}</h3>
          <button type="button" class="secondary small" data-copy="${id}" data-label="command" aria-describedby="${id}-h" hidden>
            Copy
          </button>
        </div>
        <pre><code id="${id}">${c.command}</code></pre>
      </div>`;
    })}
    ${view.install.manifest === undefined ? '' : manifestBox(view.install.manifest)}
    <p id="copy-status" class="copy-status" role="status" aria-live="polite"></p>
  </section>`;
}

function manifestBox(manifest: string): SafeHtml {
  return html`<div class="copyable">
    <div class="copy-row">
      <h3 id="manifest-h">In Packages/manifest.json</h3>
      <button
        type="button"
        class="secondary small"
        data-copy="install-manifest"
        data-label="manifest snippet"
        aria-describedby="manifest-h"
        hidden
      >
        Copy
      </button>
    </div>
    <pre><code id="install-manifest">${manifest}</code></pre>
    <p class="hint">Merge the scoped registry and the dependency into your project's manifest.</p>
  </div>`;
}

function dependencies(view: PackageView): SafeHtml {
  if (view.dependencies.length === 0) return html`<p class="muted">None.</p>`;
  return html`<ul>
    ${view.dependencies.map(
      (d) =>
        html`<li>
          ${d.hosted ? html`<a href="${packagePath(d.name)}">${d.name}</a>` : html`<span>${d.name}</span>`}
          <span class="meta">${d.range}</span>
        </li>`,
    )}
  </ul>`;
}

function versionTable(view: PackageView): SafeHtml {
  const row = (v: PackageView['versions'][number]) =>
    html`<tr${v.version === view.version ? html` aria-current="page"` : ''}><td><a href="${packagePath(view.name, v.version)}">${v.version}</a>${v.tags.map(
      (t) => html` <span class="tag">${t}</span>`,
    )}${v.deprecated ? html` <span class="tag">deprecated</span>` : ''}</td><td>${v.published ? html`<time datetime="${v.published}">${isoDate(v.published)}</time>` : ''}</td></tr>`;
  const head = html`<thead>
    <tr>
      <th scope="col">Version</th>
      <th scope="col">Published</th>
    </tr>
  </thead>`;
  const shown = view.versions.slice(0, VERSIONS_SHOWN);
  const rest = view.versions.slice(VERSIONS_SHOWN);
  return html`<table>
      ${head}
      <tbody>
        ${shown.map(row)}
      </tbody>
    </table>
    ${
      rest.length > 0
        ? html`<details>
            <summary>${rest.length} older versions</summary>
            <table>
              ${head}
              <tbody>
                ${rest.map(row)}
              </tbody>
            </table>
          </details>`
        : ''
    }`;
}
