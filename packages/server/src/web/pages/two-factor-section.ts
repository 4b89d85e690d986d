import { renderSVG } from 'uqr';
import { CSRF_FIELD } from '../csrf.js';
import { html, trustedHtml, type SafeHtml } from '../html.js';

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

/**
 * Two-factor sign-in on the account page: set it up (password, mode), scan the QR code the
 * server draws (an inline SVG: no image from elsewhere, nothing sent to another site) or type
 * its secret, confirm with a first code, keep the recovery codes shown once; or switch it off.
 */
export function twoFactorSection(view: TwoFactorView, form: TwoFactorForm): SafeHtml {
  const error = form.error ? html`<div id="two-factor-error" class="error" role="alert">${form.error}</div>` : '';
  const described = form.error ? html` aria-invalid="true" aria-describedby="two-factor-error"` : '';
  const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${form.csrf}" />`;
  const heading = html`<h2 id="two-factor">Two-factor sign-in</h2>`;
  switch (view.state) {
    case 'off':
      return html`${heading}
        <p>Sign-ins (and, in the second mode, every change such as a publish) then also need a code from an authenticator app.</p>
        ${error}
        <form method="post" action="/-/web/account/two-factor/begin" class="token-form">
          ${csrf}
          <fieldset>
            <legend>Ask for a code</legend>
            <label><input type="radio" name="mode" value="auth-and-writes" checked /> when signing in and for every change</label>
            <label><input type="radio" name="mode" value="auth-only" /> only when signing in</label>
          </fieldset>
          <label for="two-factor-password">Your password</label>
          <input id="two-factor-password" name="password" type="password" autocomplete="current-password" required ${described} />
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
        <form method="post" action="/-/web/account/two-factor/confirm" class="token-form">
          ${csrf}
          <label for="two-factor-code">Code from the app</label>
          <input
            id="two-factor-code"
            name="code"
            type="text"
            inputmode="numeric"
            autocomplete="one-time-code"
            maxlength="6"
            required
            ${described}
          />
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
        <form method="post" action="/-/web/account/two-factor/disable" class="token-form">
          ${csrf}
          <label for="two-factor-off-password">Your password</label>
          <input
            id="two-factor-off-password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            ${described}
          />
          <label for="two-factor-off-code">A code from the app (or a recovery code)</label>
          <input id="two-factor-off-code" name="code" type="text" autocomplete="one-time-code" maxlength="64" required />
          <button type="submit" class="secondary">Switch two-factor sign-in off</button>
        </form>`;
  }
}

function modeWords(mode: string): string {
  return mode === 'auth-only' ? 'when signing in' : 'when signing in and for every change';
}
