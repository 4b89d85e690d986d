import type { AuditEntry } from '../../storage/ports.js';
import { html, type HtmlValue, type SafeHtml } from '../html.js';
import { formError, formField } from './form-field.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';

export const AUDIT_PAGE = '/-/web/audit';
export const AUDIT_FILTERS = ['user', 'package', 'action', 'outcome', 'since', 'until'] as const;

/** The id of the filters' error, which the fields name when they were refused. */
const AUDIT_ERROR_ID = 'audit-error';

export interface AuditView {
  entries: AuditEntry[];
  /** The filters as the reader wrote them. */
  filters: Partial<Record<(typeof AUDIT_FILTERS)[number], string>>;
  /** The id to page on from (`before`), when there are more. */
  next: string | null;
  /** Why the filters were refused. */
  error?: string;
}

/** The registry's audit log for its administrators: a filter form and the entries, newest first. */
export function auditPage(ctx: PageContext, view: AuditView): string {
  const body = html`<h1>Audit log</h1>
    <p>Every change to this registry, and every refused attempt at one, newest first.</p>
    ${filterForm(view)} ${view.entries.length === 0 ? html`<p class="muted">No entries match.</p>` : entryTable(view.entries)}
    ${view.next ? html`<p><a href="${nextPage(view)}">Older entries</a></p>` : ''}`;
  return layout(ctx, { title: 'Audit log', body });
}

/** The filters, each a field as the other forms' are; a refused filter ties every field to its reason. */
function filterForm(view: AuditView): SafeHtml {
  const errorId = view.error ? AUDIT_ERROR_ID : undefined;
  const field = (name: (typeof AUDIT_FILTERS)[number], label: string, hint?: HtmlValue) =>
    formField({
      id: `audit-${name}`,
      name,
      label,
      ...(hint === undefined ? {} : { hint }),
      autocapitalize: 'none',
      spellcheck: false,
      value: view.filters[name] ?? '',
      errorId,
    });
  return html`${formError(AUDIT_ERROR_ID, view.error)}
    <form method="get" action="${AUDIT_PAGE}">
      <div class="filters">
        ${field('user', 'User')} ${field('package', 'Package')}
        ${field('action', 'Action or group', html`For example <code>owner.add</code>, or <code>owner</code> for all of them.`)}
        ${field('outcome', 'Outcome', html`<code>success</code>, <code>refused</code> or <code>failed</code>.`)}
        ${field('since', 'Since', 'A day (2026-11-27) or an ISO time.')}
        ${field('until', 'Until', 'A day (its end) or an ISO time.')}
      </div>
      <button type="submit">Filter</button>
    </form>`;
}

function entryTable(entries: AuditEntry[]): SafeHtml {
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Time</th>
        <th scope="col">Action</th>
        <th scope="col">Outcome</th>
        <th scope="col">Who</th>
        <th scope="col">From</th>
        <th scope="col">On what</th>
        <th scope="col">Reason</th>
      </tr>
    </thead>
    <tbody>
      ${entries.map(
        (e) =>
          html`<tr>
            <td><time datetime="${e.at}">${e.at.slice(0, 19).replace('T', ' ')}</time></td>
            <td><code>${e.action}</code></td>
            <td>${e.outcome}</td>
            <td>${whoOf(e)}</td>
            <td>${e.address ?? '—'}</td>
            <td>${e.target}</td>
            <td>${e.reason ?? ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function whoOf(e: AuditEntry): string {
  if (e.user !== null) return e.tokenId ? `${e.user} (token ${e.tokenId})` : e.user;
  if (e.via === 'cli') return 'the operator';
  return e.via === 'server' ? 'the server' : '—';
}

function nextPage(view: AuditView): string {
  const query = new URLSearchParams();
  for (const name of AUDIT_FILTERS) if (view.filters[name]) query.set(name, view.filters[name]);
  query.set('before', view.next!);
  return `${AUDIT_PAGE}?${query.toString()}`;
}
