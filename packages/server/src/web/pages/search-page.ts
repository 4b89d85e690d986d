import type { PackageSummary } from '../catalog.js';
import { html } from '../html.js';
import { layout } from './layout.js';
import { ENGINE_NAMES, packageList } from './package-list.js';
import type { PageContext } from './page-context.js';
import { searchPath } from './urls.js';

export interface SearchView {
  query: string;
  page: number;
  pageSize: number;
  total: number;
  packages: PackageSummary[];
}

export function searchPage(ctx: PageContext, view: SearchView): string {
  const pages = Math.max(1, Math.ceil(view.total / view.pageSize));
  const first = (view.page - 1) * view.pageSize + 1;
  const last = first + view.packages.length - 1;
  const heading = view.query ? html`Results for “${view.query}”` : html`All packages`;
  const body = html`<h1>${heading}</h1>
    <p class="muted" role="status">
      ${
        view.total === 0
          ? 'No packages found.'
          : html`${view.total} ${view.total === 1 ? 'package' : 'packages'}${pages > 1 ? html`, showing ${first}–${last}` : ''}.`
      }
    </p>
    ${engineFilter(view.query)}
    ${packageList(view.packages, view.total === 0 ? 'Try a shorter or different word: the search matches parts of names, descriptions, keywords and authors.' : 'No more results on this page.', { now: ctx.now })}
    ${
      pages > 1
        ? html`<nav class="pager" aria-label="Result pages">
            ${view.page > 1 ? html`<a rel="prev" href="${searchPath(view.query, view.page - 1)}">← Previous</a>` : ''}
            <span>Page ${view.page} of ${pages}</span>
            ${view.page < pages ? html`<a rel="next" href="${searchPath(view.query, view.page + 1)}">Next →</a>` : ''}
          </nav>`
        : ''
    }`;
  return layout(ctx, { title: view.query ? `Search: ${view.query}` : 'All packages', body, query: view.query });
}

const ENGINE_QUALIFIER = /(^|\s)engine:\S*/gi;

/** Links that narrow the same search to one engine's packages (`engine:godot`), or widen it again. */
function engineFilter(query: string) {
  const rest = query.replace(ENGINE_QUALIFIER, ' ').replace(/\s+/g, ' ').trim();
  const current = /(?:^|\s)engine:(\S+)/i.exec(query)?.[1]?.toLowerCase();
  const link = (engine: keyof typeof ENGINE_NAMES | undefined) => {
    const text = engine ? `${rest} engine:${engine}`.trim() : rest;
    const label = engine ? ENGINE_NAMES[engine] : 'Any engine';
    return engine === current || (engine === undefined && current === undefined)
      ? html`<li><a href="${searchPath(text)}" aria-current="page">${label}</a></li>`
      : html`<li><a href="${searchPath(text)}">${label}</a></li>`;
  };
  return html`<nav class="engine-filter" aria-label="Filter by engine">
    <ul>
      ${link(undefined)} ${link('unity')} ${link('godot')} ${link('unreal')}
    </ul>
  </nav>`;
}
