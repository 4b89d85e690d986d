import type { PackageSummary } from '../catalog.js';
import { html } from '../html.js';
import { layout } from './layout.js';
import { packageList } from './package-list.js';
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
    ${packageList(view.packages, view.total === 0 ? 'Try a shorter or different word: the search matches parts of names, descriptions, keywords and authors.' : 'No more results on this page.')}
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
