import { CSRF_FIELD } from '../csrf.js';
import { html, type SafeHtml } from '../html.js';

export interface SignInFormOptions {
  action: string;
  csrf: string;
  /** Offer the e-mail field that creates an account (open sign-up). */
  signup: boolean;
  name?: string;
  /** Where to go after signing in (a local path). */
  next?: string;
  error?: string;
  submitLabel: string;
}

/**
 * Name and password (and, where sign-up is open, an e-mail for a new account). After a failed
 * attempt the fields are marked invalid, described by the error, and the first has the focus
 * (`autofocus`: no script needed, the CSP allows none inline).
 */
export function signInForm(options: SignInFormOptions): SafeHtml {
  const failed = options.error !== undefined && options.error !== '';
  const invalid = failed ? html` aria-invalid="true" aria-describedby="signin-error"` : '';
  return html`${failed ? html`<div id="signin-error" class="error" role="alert">${options.error}</div>` : ''}
    <form method="post" action="${options.action}">
      <input type="hidden" name="${CSRF_FIELD}" value="${options.csrf}" />
      ${options.next ? html`<input type="hidden" name="next" value="${options.next}" />` : ''}
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
          value="${options.name ?? ''}"
          ${invalid}${failed ? html` autofocus` : ''}
        />
      </div>
      <div class="field">
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          maxlength="1024"
          ${invalid}
        />
      </div>
      <div class="field">
        <label for="otp">One-time password <span class="muted">(only with two-factor sign-in)</span></label>
        <input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="64" />
      </div>
      ${
        options.signup
          ? html`<div class="field">
              <label for="email">E-mail <span class="muted">(only to create a new account)</span></label>
              <input id="email" name="email" type="email" autocomplete="email" maxlength="254" aria-describedby="email-hint" />
              <span id="email-hint" class="hint">New user names become accounts when an e-mail is given.</span>
            </div>`
          : ''
      }
      <button type="submit">${options.submitLabel}</button>
    </form>`;
}
