import { html, type SafeHtml } from '../../html.js';
import type { PackageView } from '../../package-view.js';
import { timeElement } from '../relative-time.js';
import { packagePath } from '../urls.js';

/** Versions listed before the rest is folded away. */
const VERSIONS_SHOWN = 15;

export function distTagsSection(view: PackageView): SafeHtml {
  return html`<section aria-labelledby="tags-h">
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
  </section>`;
}

export function versionsSection(view: PackageView, now: Date | undefined): SafeHtml {
  const row = (v: PackageView['versions'][number]) =>
    html`<tr${v.version === view.version ? html` aria-current="page"` : ''}><td><a href="${packagePath(view.name, v.version)}">${v.version}</a>${v.tags.map(
      (t) => html` <span class="tag">${t}</span>`,
    )}${v.deprecated ? html` <span class="tag">deprecated</span>` : ''}${
      v.advisories > 0 ? html` <span class="tag">${v.advisories === 1 ? 'advisory' : `${v.advisories} advisories`}</span>` : ''
    }</td><td>${timeElement(v.published, now)}</td></tr>`;
  const head = html`<thead>
    <tr>
      <th scope="col">Version</th>
      <th scope="col">Published</th>
    </tr>
  </thead>`;
  const shown = view.versions.slice(0, VERSIONS_SHOWN);
  const rest = view.versions.slice(VERSIONS_SHOWN);
  return html`<section aria-labelledby="versions-h">
    <h2 id="versions-h">Versions (${view.versions.length})</h2>
    <table>
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
    }
  </section>`;
}
