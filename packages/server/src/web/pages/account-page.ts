import type { TokenSummary } from '../../services/auth-service.js';
import { CSRF_FIELD } from '../csrf.js';
import { html, type SafeHtml } from '../html.js';
import { isoDate } from '../package-facts.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';

/** A token as the account page lists it: never the token itself; the revoke form sends its id. */
export type TokenRow = TokenSummary;

export interface AccountView {
  user: string;
  email: string;
  tokens: TokenRow[];
  notice?: string;
}

export function accountPage(ctx: PageContext, view: AccountView): string {
  const body = html`<h1>${view.user}</h1>
    <p class="muted">${view.email}</p>
    ${view.notice ? html`<div class="ok" role="status">${view.notice}</div>` : ''}
    <h2>Access tokens</h2>
    <p>
      Every <code>npm login</code>, <code>pkg login</code> or web login creates one. Revoke those you no longer use: clients
      holding them must log in again.
    </p>
    ${view.tokens.length === 0 ? html`<p class="muted">You have no tokens.</p>` : tokenTable(ctx, view.tokens)}`;
  return layout(ctx, { title: 'Your account', body });
}

function tokenTable(ctx: PageContext, tokens: TokenRow[]): SafeHtml {
  return html`<table>
    <thead>
      <tr>
        <th scope="col">Token</th>
        <th scope="col">Created</th>
        <th scope="col">Expires</th>
        <th scope="col">Access</th>
        <th scope="col"><span class="visually-hidden">Action</span></th>
      </tr>
    </thead>
    <tbody>
      ${tokens.map(
        (t) =>
          html`<tr>
            <td><code>${t.prefix ? `${t.prefix}…` : `id ${t.id.slice(0, 8)}`}</code></td>
            <td><time datetime="${t.createdAt}">${isoDate(t.createdAt)}</time></td>
            <td>${t.expiresAt ? html`<time datetime="${t.expiresAt}">${isoDate(t.expiresAt)}</time>` : 'never'}</td>
            <td>${t.readonly ? 'read-only' : 'read and publish'}</td>
            <td>
              <form method="post" action="/-/web/account/tokens/revoke">
                <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
                <input type="hidden" name="id" value="${t.id}" />
                <button
                  type="submit"
                  class="secondary small"
                  aria-label="Revoke token ${t.prefix ?? t.id.slice(0, 8)}, created ${isoDate(t.createdAt)}"
                >
                  Revoke
                </button>
              </form>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
