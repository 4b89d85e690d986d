import type { SupportedEngine } from '@pkg/protocol';
import { html, type SafeHtml } from '../../html.js';
import type { PackageView } from '../../package-view.js';
import { advisoriesPath, packagePath, searchPath } from '../urls.js';

const ENGINE_NAMES: Record<SupportedEngine['engine'], string> = { unity: 'Unity', godot: 'Godot', unreal: 'Unreal Engine' };

/** Dependents listed by name before the rest is only counted. */
const DEPENDENTS_SHOWN = 20;

/** `2021.3.0f1 or newer`, `4.2 to 4.3`, `5.3 only`, `any version`. */
function engineVersions(e: SupportedEngine): string {
  if (e.min === undefined) return 'any version';
  if (e.max === undefined) return `${e.min} or newer`;
  return e.max === e.min ? `${e.min} only` : `${e.min} to ${e.max}`;
}

/** `12.3 kB`, `1.4 MB` (decimal units, as npm's pages show sizes). */
export function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

const count = (n: number) => n.toLocaleString('en-US');

function externalLink(url: string): SafeHtml {
  return html`<a href="${url}" rel="nofollow ugc noopener noreferrer">${url.replace(/^(https?:\/\/|mailto:)/, '')}</a>`;
}

/** Details: engines, license, people, links, sizes, the tarball, this week's downloads, supply-chain marks. */
export function factsSection(view: PackageView, weeklyDownloads: number): SafeHtml {
  return html`<section aria-labelledby="facts-h">
    <h2 id="facts-h">Details</h2>
    ${marks(view)}
    <p><a href="${advisoriesPath(view.name)}">Security advisories</a></p>
    <dl class="facts">
      ${view.engines.map(
        (e) =>
          html`<dt>${ENGINE_NAMES[e.engine]}</dt>
            <dd>${engineVersions(e)}</dd>`,
      )}
      <dt>Weekly downloads</dt>
      <dd>${count(weeklyDownloads)}</dd>
      <dt>License</dt>
      <dd><bdi>${view.license || 'none given'}</bdi></dd>
      ${
        view.author
          ? html`<dt>Author</dt>
              <dd><bdi>${view.author}</bdi></dd>`
          : ''
      }
      <dt>Maintainers</dt>
      <dd>
        ${view.maintainers.length > 0 ? view.maintainers.map((m, i) => html`${i > 0 ? ', ' : ''}<bdi>${m}</bdi>`) : 'none listed'}
      </dd>
      ${
        view.repository
          ? html`<dt>Repository</dt>
              <dd>${externalLink(view.repository)}</dd>`
          : ''
      }
      ${
        view.homepage
          ? html`<dt>Homepage</dt>
              <dd>${externalLink(view.homepage)}</dd>`
          : ''
      }
      ${
        view.bugs
          ? html`<dt>Issues</dt>
              <dd>${externalLink(view.bugs)}</dd>`
          : ''
      }
      ${
        view.unpackedSize !== undefined
          ? html`<dt>Unpacked size</dt>
              <dd>${byteSize(view.unpackedSize)}</dd>`
          : ''
      }
      ${
        view.fileCount !== undefined
          ? html`<dt>Files</dt>
              <dd>${count(view.fileCount)}</dd>`
          : ''
      }
      <dt>Tarball</dt>
      <dd><a href="${view.tarball.url}" download>${view.tarball.file}</a></dd>
    </dl>
    ${
      view.keywords.length > 0
        ? html`<ul class="keywords" aria-label="Keywords">
            ${view.keywords.map(
              (k) =>
                html`<li>
                  <a href="${searchPath(k)}"><bdi>${k}</bdi></a>
                </li>`,
            )}
          </ul>`
        : ''
    }
  </section>`;
}

/** Signature, provenance and advisories of the version, where the registry has them. */
function marks(view: PackageView): SafeHtml | '' {
  const { signed, provenance, advisories, unity } = view.marks;
  if (!signed && !provenance && advisories.length === 0 && unity === undefined) return '';
  return html`<ul class="marks" aria-label="Supply chain">
    ${signed ? html`<li class="mark ok-mark">Signed by this registry</li>` : ''}
    ${provenance ? html`<li class="mark ok-mark">Built with provenance</li>` : ''}
    ${
      unity === undefined
        ? ''
        : unity === false
          ? html`<li class="mark warn-mark">Unsigned Unity package</li>`
          : html`<li class="mark ok-mark">Signed for Unity${unity.signer ? html` by <bdi>${unity.signer}</bdi>` : ''}</li>`
    }
    ${advisories.map(
      (a) =>
        html`<li class="mark warn-mark">
          ${a.severity} advisory${a.upstream ? html` from the upstream registry <bdi>${a.upstream}</bdi>` : ''}:
          ${a.url ? html`<a href="${a.url}" rel="nofollow ugc noopener noreferrer"><bdi>${a.title}</bdi></a>` : html`<bdi>${a.title}</bdi>`}
        </li>`,
    )}
  </ul>`;
}

/** Dependencies (linked when served here) and dependents in this registry. */
export function dependencySections(view: PackageView): SafeHtml {
  const { dependents } = view;
  const shown = dependents.names.slice(0, DEPENDENTS_SHOWN);
  return html`<section aria-labelledby="deps-h">
      <h2 id="deps-h">Dependencies (${view.dependencies.length})</h2>
      ${
        view.dependencies.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<ul class="names">
              ${view.dependencies.map(
                (d) =>
                  html`<li>
                    ${d.hosted ? html`<a href="${packagePath(d.name)}">${d.name}</a>` : html`<span>${d.name}</span>`}
                    <span class="meta">${d.range}</span>
                  </li>`,
              )}
            </ul>`
      }
    </section>
    <section aria-labelledby="dependents-h">
      <h2 id="dependents-h">Dependents${dependents.counted ? html` (${dependents.names.length})` : ''}</h2>
      ${
        !dependents.counted
          ? html`<p class="muted">Not counted: this registry holds too many packages to read them all for this page.</p>`
          : dependents.names.length === 0
            ? html`<p class="muted">No package in this registry depends on it.</p>`
            : html`<ul class="names">
                  ${shown.map((name) => html`<li><a href="${packagePath(name)}">${name}</a></li>`)}
                </ul>
                ${dependents.names.length > shown.length ? html`<p class="muted">and ${dependents.names.length - shown.length} more.</p>` : ''}`
      }
    </section>`;
}
