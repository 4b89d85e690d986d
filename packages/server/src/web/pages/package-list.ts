import type { SupportedEngine } from '@pkg/protocol';
import type { PackageSummary } from '../catalog.js';
import { html, type SafeHtml } from '../html.js';
import { timeElement } from './relative-time.js';
import { packagePath, searchPath } from './urls.js';

export interface PackageListOptions {
  /** Which downloads each entry shows: the last 7 days (default) or the last 30, as the list is ordered. */
  downloads?: 'week' | 'month';
  now?: Date | undefined;
}

/** A list of packages with name, version, engines, description, keywords, update time and downloads. */
export function packageList(packages: PackageSummary[], empty: string, options: PackageListOptions = {}): SafeHtml {
  if (packages.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<ul class="packages">
    ${packages.map((pkg) => packageItem(pkg, options))}
  </ul>`;
}

function packageItem(pkg: PackageSummary, options: PackageListOptions): SafeHtml {
  const month = options.downloads === 'month';
  const downloads = month ? pkg.monthlyDownloads : pkg.weeklyDownloads;
  return html`<li>
    <a class="name" href="${packagePath(pkg.name)}"><bdi>${pkg.displayName ?? pkg.name}</bdi></a>
    ${pkg.displayName ? html` <span class="meta">${pkg.name}</span>` : ''}
    <span class="meta">${pkg.version}</span>
    ${pkg.deprecated !== undefined ? html` <span class="tag deprecated-tag" title="${pkg.deprecated}">deprecated</span>` : ''}
    ${
      pkg.engines.length > 0
        ? html` <span class="meta engines"
            >${pkg.engines.map((e, i) => html`${i > 0 ? ' · ' : ''}<a href="${searchPath(`engine:${e.engine}`)}">${engineLabel(e)}</a>`)}</span
          >`
        : ''
    }
    ${pkg.description ? html`<p dir="auto">${pkg.description}</p>` : ''}
    <p class="meta">
      ${pkg.author ? html`<bdi>${pkg.author}</bdi> · ` : ''}${pkg.updated ? html`updated ${timeElement(pkg.updated, options.now)} · ` : ''}${downloads.toLocaleString('en-US')}
      ${downloads === 1 ? 'download' : 'downloads'} in ${month ? '30' : '7'} days
    </p>
    ${
      pkg.keywords.length > 0
        ? html`<ul class="keywords" aria-label="Keywords">
            ${pkg.keywords.slice(0, 8).map(
              (k) =>
                html`<li>
                  <a href="${searchPath(k)}"><bdi>${k}</bdi></a>
                </li>`,
            )}
          </ul>`
        : ''
    }
  </li>`;
}

export const ENGINE_NAMES: Record<SupportedEngine['engine'], string> = {
  unity: 'Unity',
  godot: 'Godot',
  unreal: 'Unreal Engine',
};

/** `Unity 2021.3+`, `Godot 4.2–4.3`, `Unreal Engine 5.3`, `Unity`: short enough for a list. */
function engineLabel(e: SupportedEngine): string {
  if (e.min === undefined) return ENGINE_NAMES[e.engine];
  if (e.max === undefined) return `${ENGINE_NAMES[e.engine]} ${e.min}+`;
  return e.max === e.min ? `${ENGINE_NAMES[e.engine]} ${e.min}` : `${ENGINE_NAMES[e.engine]} ${e.min}–${e.max}`;
}
