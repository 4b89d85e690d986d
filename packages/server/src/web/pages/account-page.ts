import type { TokenSummary } from '../../services/auth-service.js';
import type { TeamRecord } from '../../storage/team-store.js';
import { teamsSection } from './account-teams.js';
import { CSRF_FIELD } from '../csrf.js';
import { html, type SafeHtml } from '../html.js';
import { formError, formField } from './form-field.js';
import { isoDate } from '../package-facts.js';
import { layout } from './layout.js';
import { twoFactorSection, type TwoFactorView } from './two-factor-section.js';
import type { PageContext } from './page-context.js';

/** A token as the account page lists it: never the token itself; the revoke form sends its id. */
export type TokenRow = TokenSummary;

export interface AccountView {
  user: string;
  email: string;
  tokens: TokenRow[];
  /** The teams the user is a member of. */
  teams: TeamRecord[];
  notice?: string;
  /** A token just created: shown on this page only, once. */
  created?: { token: string; id: string };
  /** Why the token form was refused, and what it held (never the password). */
  formError?: string;
  form?: Record<string, string>;
  /** The viewer's two-factor sign-in, and why its last form was refused. */
  twoFactor: TwoFactorView;
  twoFactorError?: string;
}

/** The id of the token form's error, which its fields name when it was refused. */
const TOKEN_ERROR_ID = 'token-error';

export function accountPage(ctx: PageContext, view: AccountView): string {
  const body = html`<h1>${view.user}</h1>
    <p class="muted">${view.email}</p>
    ${view.notice ? html`<div class="ok" role="status">${view.notice}</div>` : ''}
    <h2>Access tokens</h2>
    <p>
      Every <code>npm login</code>, <code>pkg login</code> or web login creates one. Revoke those you no longer use: clients
      holding them must log in again.
    </p>
    ${view.created ? createdToken(view.created) : ''}
    ${view.tokens.length === 0 ? html`<p class="muted">You have no tokens.</p>` : tokenTable(ctx, view.tokens)}
    ${tokenForm(ctx, view)} ${teamsSection(view.user, view.teams)}
    ${twoFactorSection(view.twoFactor, { csrf: ctx.csrf, error: view.twoFactorError })}`;
  // A title of its own while enrolment waits for its first code, and for the recovery codes.
  const state = view.twoFactor.state;
  const title =
    state === 'pending' ? 'Set up two-factor sign-in' : state === 'confirmed' ? 'Two-factor sign-in is on' : 'Your account';
  return layout(ctx, { title, body });
}

/** The token table's columns but the last (the Revoke buttons): also each value's label when a row is stacked. */
const TOKEN_COLUMNS = ['Token', 'Name', 'Created', 'Last used', 'Expires', 'Limits'] as const;
type TokenColumn = (typeof TOKEN_COLUMNS)[number];

/** On a phone each row stacks as label/value pairs (style.css, `table.stacked`); the labels are the column headers'. */
function tokenTable(ctx: PageContext, tokens: TokenRow[]): SafeHtml {
  const cell = (column: TokenColumn, value: SafeHtml | string) => html`<td data-label="${column}">${value}</td>`;
  return html`<table class="stacked">
    <thead>
      <tr>
        ${TOKEN_COLUMNS.map((column) => html`<th scope="col">${column}</th>`)}
        <th scope="col"><span class="visually-hidden">Action</span></th>
      </tr>
    </thead>
    <tbody>
      ${tokens.map(
        (t) =>
          html`<tr>
            ${cell('Token', html`<code>${t.prefix ? `${t.prefix}…` : `id ${t.id.slice(0, 8)}`}</code>`)}
            ${cell('Name', t.scope?.name ?? '')}
            ${cell('Created', html`<time datetime="${t.createdAt}">${isoDate(t.createdAt)}</time>`)}
            ${cell(
              'Last used',
              t.lastUsedAt
                ? html`<time datetime="${t.lastUsedAt}">${t.lastUsedAt.slice(0, 16).replace('T', ' ')}</time> from
                    <code>${t.lastAddress ?? ''}</code>`
                : 'never',
            )}
            ${cell('Expires', t.expiresAt ? html`<time datetime="${t.expiresAt}">${isoDate(t.expiresAt)}</time>` : 'never')}
            ${cell('Limits', limitsOf(t))}
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

/** The limits of a token in words. */
function limitsOf(t: TokenRow): string {
  const limits = [t.readonly ? 'read-only' : t.scope?.publishOnly ? 'publish only' : 'read and publish'];
  if (t.scope?.automation) limits.push('automation (no one-time password)');
  if (t.scope?.packages) limits.push(`packages ${t.scope.packages.join(', ')}`);
  if (t.scope?.cidrWhitelist) limits.push(`from ${t.scope.cidrWhitelist.join(', ')}`);
  return limits.join('; ');
}

function createdToken(created: { token: string; id: string }): SafeHtml {
  return html`<div class="ok" role="status">
    <p>Your new token (shown only now: copy it to where it is used, e.g. your CI secrets):</p>
    <p><code id="new-token">${created.token}</code></p>
  </div>`;
}

/** Creates a token with limits; the password again, as npm's token API asks. */
function tokenForm(ctx: PageContext, view: AccountView): SafeHtml {
  const form = view.form ?? {};
  const access = form.access ?? 'publish';
  // A refusal (a wrong password, a bad limit) names no one field: every text field is tied to it.
  const errorId = view.formError ? TOKEN_ERROR_ID : undefined;
  const option = (value: string, label: string) =>
    html`<label><input type="radio" name="access" value="${value}" ${access === value ? 'checked' : ''} /> ${label}</label>`;
  return html`<h2>Create a token</h2>
    ${formError(TOKEN_ERROR_ID, view.formError)}
    <form method="post" action="/-/web/account/tokens">
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
      ${formField({
        id: 'token-name',
        name: 'name',
        label: 'Name',
        note: '(optional)',
        maxlength: 128,
        value: form.name ?? '',
        hint: 'Shown in the list above, to tell your tokens apart.',
        errorId,
      })}
      <fieldset>
        <legend>Access</legend>
        ${option('publish', 'read and publish')} ${option('readonly', 'read-only')}
        ${option('publishOnly', 'publish only (no dist-tags, owners, deprecation, unpublish)')}
      </fieldset>
      <p>
        <label
          ><input type="checkbox" name="automation" value="1" ${form.automation ? 'checked' : ''} /> automation (for CI: never
          asked for a one-time password)</label
        >
      </p>
      ${formField({
        id: 'token-packages',
        name: 'packages',
        label: 'Packages or namespaces',
        note: '(optional)',
        autocapitalize: 'none',
        spellcheck: false,
        value: form.packages ?? '',
        hint: html`Comma-separated, for example <code>com.studio.*</code>; empty: all.`,
        errorId,
      })}
      ${formField({
        id: 'token-cidr',
        name: 'cidr',
        label: 'Address ranges',
        note: '(optional)',
        autocapitalize: 'none',
        spellcheck: false,
        value: form.cidr ?? '',
        hint: html`Comma-separated, for example <code>10.0.0.0/8</code>; empty: anywhere.`,
        errorId,
      })}
      ${formField({
        id: 'token-expires',
        name: 'expires',
        label: 'Expires after',
        note: '(optional)',
        inputmode: 'numeric',
        value: form.expires ?? '',
        hint: 'In days; empty: never.',
        errorId,
      })}
      ${formField({
        id: 'token-password',
        name: 'password',
        label: 'Your password',
        type: 'password',
        autocomplete: 'current-password',
        required: true,
        errorId,
      })}
      <button type="submit">Create token</button>
    </form>`;
}
