import type { SupportedEngine } from '@pkg/protocol';
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
    ${pkg.engines.length > 0 ? html` <span class="meta engines">${pkg.engines.map(engineLabel).join(' · ')}</span>` : ''}
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

const NAMES: Record<SupportedEngine['engine'], string> = { unity: 'Unity', godot: 'Godot', unreal: 'Unreal Engine' };

/** `Unity 2021.3+`, `Godot 4.2–4.3`, `Unreal Engine 5.3`, `Unity`: short enough for a list. */
function engineLabel(e: SupportedEngine): string {
  if (e.min === undefined) return NAMES[e.engine];
  if (e.max === undefined) return `${NAMES[e.engine]} ${e.min}+`;
  return e.max === e.min ? `${NAMES[e.engine]} ${e.min}` : `${NAMES[e.engine]} ${e.min}–${e.max}`;
}
