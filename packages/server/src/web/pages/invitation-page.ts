import { CSRF_FIELD } from '../csrf.js';
import { html } from '../html.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';

export interface InvitationView {
  /** Where the form posts (the invitation's own path). */
  action: string;
  invitedBy: string;
  expiresAt: string;
  admin: boolean;
  passwordMinLength: number;
  name?: string;
  email?: string;
  error?: string;
}

/**
 * The page an invitation link opens: the invited person chooses a user name and password (and
 * an e-mail), then is signed in. It works while sign-up is closed: the invitation is the permission.
 */
export function invitationPage(ctx: PageContext, view: InvitationView): string {
  const failed = view.error !== undefined && view.error !== '';
  const invalid = failed ? html` aria-invalid="true" aria-describedby="invitation-error"` : '';
  const body = html`<div class="card">
    <h1>Create your account</h1>
    <p>
      ${view.invitedBy} invited you to ${ctx.host}${view.admin ? ' as an administrator' : ''}. The invitation can be used once,
      until <time datetime="${view.expiresAt}">${view.expiresAt.slice(0, 16).replace('T', ' ')} UTC</time>.
    </p>
    ${failed ? html`<div id="invitation-error" class="error" role="alert">${view.error}</div>` : ''}
    <form method="post" action="${view.action}">
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
      <div class="field">
        <label for="name">User name</label>
        <input
          id="name"
          name="name"
          type="text"
          autocomplete="username"
          autocapitalize="none"
          spellcheck="false"
          required
          maxlength="128"
          value="${view.name ?? ''}"
          aria-describedby="name-hint"
          ${invalid}${failed ? html` autofocus` : ''}
        />
        <span id="name-hint" class="hint">Letters, digits, ".", "_" and "-".</span>
      </div>
      <div class="field">
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="email" maxlength="254" value="${view.email ?? ''}" />
      </div>
      <div class="field">
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength="${String(view.passwordMinLength)}"
          maxlength="1024"
          aria-describedby="password-hint"
        />
        <span id="password-hint" class="hint"
          >At least ${String(view.passwordMinLength)} characters; the most common passwords are refused.</span
        >
      </div>
      <button type="submit">Create account and sign in</button>
    </form>
  </div>`;
  return layout(ctx, { title: failed ? 'Account not created' : 'Create your account', body });
}
