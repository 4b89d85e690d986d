import { renderSVG } from 'uqr';
import { CSRF_FIELD } from '../csrf.js';
import { html, trustedHtml, type SafeHtml } from '../html.js';
import { formError, labelledInput, type FormField } from './form-field.js';

/** What the account page shows of the viewer's two-factor sign-in. */
export type TwoFactorView =
  | { state: 'off' }
  /** Enrolment begun: the `otpauth://` URL to scan, waiting for a first code. */
  | { state: 'pending'; url: string }
  | { state: 'on'; mode: string; recoveryCodesLeft: number }
  /** Just confirmed: the recovery codes, shown this once. */
  | { state: 'confirmed'; mode: string; recoveryCodes: string[] };

export interface TwoFactorForm {
  csrf: string;
  /** Why the last form was refused. */
  error?: string | undefined;
}

/** The password again, which setting two-factor sign-in up and switching it off both ask for. */
const YOUR_PASSWORD_FIELD = {
  name: 'password',
  label: 'Your password',
  type: 'password',
  autocomplete: 'current-password',
  required: true,
} as const satisfies Omit<FormField, 'id'>;

/**
 * Two-factor sign-in on the account page: set it up (password, mode), scan the QR code the
 * server draws (an inline SVG: no image from elsewhere, nothing sent to another site) or type
 * its secret, confirm with a first code, keep the recovery codes shown once; or switch it off.
 */
export function twoFactorSection(view: TwoFactorView, form: TwoFactorForm): SafeHtml {
  const error = formError('two-factor-error', form.error);
  const errorId = form.error ? 'two-factor-error' : undefined;
  const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${form.csrf}" />`;
  const heading = html`<h2 id="two-factor">Two-factor sign-in</h2>`;
  switch (view.state) {
    case 'off':
      return html`${heading}
        <p>Sign-ins (and, in the second mode, every change such as a publish) then also need a code from an authenticator app.</p>
        ${error}
        <form method="post" action="/-/web/account/two-factor/begin">
          ${csrf}
          <fieldset>
            <legend>Ask for a code</legend>
            <label><input type="radio" name="mode" value="auth-and-writes" checked /> when signing in and for every change</label>
            <label><input type="radio" name="mode" value="auth-only" /> only when signing in</label>
          </fieldset>
          ${labelledInput({ ...YOUR_PASSWORD_FIELD, id: 'two-factor-password', errorId })}
          <button type="submit">Set up two-factor sign-in</button>
        </form>`;
    case 'pending': {
      const secret = new URL(view.url).searchParams.get('secret') ?? '';
      return html`${heading}
        <p>Scan this code with your authenticator app, or type the secret into it, then enter the code it shows.</p>
        <figure class="qr-code" role="img" aria-label="QR code of your two-factor secret">
          ${trustedHtml(renderSVG(view.url))}
        </figure>
        <p>Secret: <code id="two-factor-secret">${secret}</code></p>
        ${error}
        <form method="post" action="/-/web/account/two-factor/confirm">
          ${csrf}
          ${labelledInput({
            id: 'two-factor-code',
            name: 'code',
            label: 'Code from the app',
            inputmode: 'numeric',
            autocomplete: 'one-time-code',
            required: true,
            maxlength: 6,
            errorId,
          })}
          <button type="submit">Confirm</button>
        </form>`;
    }
    case 'confirmed':
      return html`${heading}
        <div class="ok" role="status">
          <p>Two-factor sign-in is on (${modeWords(view.mode)}). Your recovery codes, shown only now:</p>
          <ul id="recovery-codes">
            ${view.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}
          </ul>
          <p>Each works once in place of a code (npm, pkg and this site), if you lose the app. Keep them somewhere safe.</p>
        </div>`;
    case 'on':
      return html`${heading}
        <p>On: a code is asked ${modeWords(view.mode)}. ${String(view.recoveryCodesLeft)} recovery codes left.</p>
        ${error}
        <form method="post" action="/-/web/account/two-factor/disable">
          ${csrf} ${labelledInput({ ...YOUR_PASSWORD_FIELD, id: 'two-factor-off-password', errorId })}
          ${labelledInput({
            id: 'two-factor-off-code',
            name: 'code',
            label: 'A code from the app (or a recovery code)',
            autocomplete: 'one-time-code',
            required: true,
            maxlength: 64,
          })}
          <button type="submit" class="secondary">Switch two-factor sign-in off</button>
        </form>`;
  }
}

function modeWords(mode: string): string {
  return mode === 'auth-only' ? 'when signing in' : 'when signing in and for every change';
}
