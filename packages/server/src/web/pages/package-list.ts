import type { PackageSummary } from '../catalog.js';
import { html, type SafeHtml } from '../html.js';
import { isoDate } from '../package-facts.js';
import { packagePath, searchPath } from './urls.js';

/** A list of packages with name, version, description, keywords and update date. */
export function packageList(packages: PackageSummary[], empty: string): SafeHtml {
  if (packages.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<ul class="packages">
    ${packages.map(packageItem)}
  </ul>`;
}

function packageItem(pkg: PackageSummary): SafeHtml {
  const updated = isoDate(pkg.updated);
  return html`<li>
    <a class="name" href="${packagePath(pkg.name)}">${pkg.displayName ?? pkg.name}</a>
    ${pkg.displayName ? html` <span class="meta">${pkg.name}</span>` : ''}
    <span class="meta">${pkg.version}</span>
    ${pkg.description ? html`<p>${pkg.description}</p>` : ''}
    <p class="meta">
      ${pkg.author ? html`${pkg.author} · ` : ''}${updated ? html`updated <time datetime="${pkg.updated}">${updated}</time>` : ''}${html` ·
      ${pkg.weeklyDownloads.toLocaleString('en-US')} ${pkg.weeklyDownloads === 1 ? 'download' : 'downloads'} in 7 days`}
    </p>
    ${
      pkg.keywords.length > 0
        ? html`<ul class="keywords" aria-label="Keywords">
            ${pkg.keywords.slice(0, 8).map((k) => html`<li><a href="${searchPath(k)}">${k}</a></li>`)}
          </ul>`
        : ''
    }
  </li>`;
}
