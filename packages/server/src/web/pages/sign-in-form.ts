import { CSRF_FIELD } from '../csrf.js';
import { html, type SafeHtml } from '../html.js';
import { formError, formField, type FormField } from './form-field.js';

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

/** The user name as both the sign-in form and an invitation's form ask for it. */
export const USER_NAME_FIELD = {
  id: 'name',
  name: 'name',
  label: 'User name',
  autocomplete: 'username',
  autocapitalize: 'none',
  spellcheck: false,
  required: true,
  maxlength: 128,
} as const satisfies FormField;

const PASSWORD_FIELD = {
  id: 'password',
  name: 'password',
  label: 'Password',
  type: 'password',
  autocomplete: 'current-password',
  required: true,
  maxlength: 1024,
} as const satisfies FormField;

const ONE_TIME_PASSWORD_FIELD = {
  id: 'otp',
  name: 'otp',
  label: 'One-time password',
  note: '(only with two-factor sign-in)',
  inputmode: 'numeric',
  autocomplete: 'one-time-code',
  maxlength: 64,
} as const satisfies FormField;

const NEW_ACCOUNT_EMAIL_FIELD = {
  id: 'email',
  name: 'email',
  label: 'E-mail',
  note: '(only to create a new account)',
  type: 'email',
  autocomplete: 'email',
  maxlength: 254,
  hint: 'New user names become accounts when an e-mail is given.',
} as const satisfies FormField;

/**
 * Name and password (and, where sign-up is open, an e-mail for a new account). After a failed
 * attempt the fields are marked invalid, described by the error, and the first has the focus
 * (`autofocus`: no script needed, the CSP allows none inline).
 */
export function signInForm(options: SignInFormOptions): SafeHtml {
  const errorId = options.error ? 'signin-error' : undefined;
  return html`${formError('signin-error', options.error)}
    <form method="post" action="${options.action}">
      <input type="hidden" name="${CSRF_FIELD}" value="${options.csrf}" />
      ${options.next ? html`<input type="hidden" name="next" value="${options.next}" />` : ''}
      ${formField({ ...USER_NAME_FIELD, value: options.name ?? '', errorId, autofocus: errorId !== undefined })}
      ${formField({ ...PASSWORD_FIELD, errorId })} ${formField(ONE_TIME_PASSWORD_FIELD)}
      ${options.signup ? formField(NEW_ACCOUNT_EMAIL_FIELD) : ''}
      <button type="submit">${options.submitLabel}</button>
    </form>`;
}
