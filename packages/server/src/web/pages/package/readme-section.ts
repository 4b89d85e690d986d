import { html, type SafeHtml } from '../../html.js';
import type { PackageView } from '../../package-view.js';
import { renderReadme } from '../../readme.js';
import { packagePath } from '../urls.js';

/** The readme, saying whose it is when it is not the shown version's own, or a placeholder. */
export function readmeSection(view: PackageView): SafeHtml {
  const rendered = renderReadme(view.readme.markdown, { repository: view.repository, directory: view.repositoryDirectory });
  const whose =
    view.readme.source === 'package' && view.readme.from !== undefined
      ? html`<p class="notice" role="note">
          This registry keeps one readme per package: this one came with the latest release,
          <a href="${packagePath(view.name)}">${view.readme.from}</a>. Version ${view.version} may have had another.
        </p>`
      : '';
  return html`<article class="readme" aria-labelledby="readme-h">
    <h2 id="readme-h" class="visually-hidden">Readme</h2>
    ${whose}
    ${
      rendered ??
      html`<div class="placeholder">
        <p><strong>No readme.</strong> The author of ${view.name} published it without a README file.</p>
        <p>
          See the details and the install lines on this
          page${
            view.repository
              ? html`, or the <a href="${view.repository}" rel="nofollow ugc noopener noreferrer">repository</a>`
              : ''
          }.
        </p>
      </div>`
    }
  </article>`;
}
