import { CSRF_FIELD } from '../csrf.js';
import { html } from '../html.js';
import { formError, formField } from './form-field.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';
import { USER_NAME_FIELD } from './sign-in-form.js';

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
  const errorId = view.error ? 'invitation-error' : undefined;
  const body = html`<div class="card">
    <h1>Create your account</h1>
    <p>
      ${view.invitedBy} invited you to ${ctx.host}${view.admin ? ' as an administrator' : ''}. The invitation can be used once,
      until <time datetime="${view.expiresAt}">${view.expiresAt.slice(0, 16).replace('T', ' ')} UTC</time>.
    </p>
    ${formError('invitation-error', view.error)}
    <form method="post" action="${view.action}">
      <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
      ${formField({
        ...USER_NAME_FIELD,
        value: view.name ?? '',
        hint: 'Letters, digits, ".", "_" and "-".',
        errorId,
        autofocus: errorId !== undefined,
      })}
      ${formField({
        id: 'email',
        name: 'email',
        label: 'E-mail',
        type: 'email',
        autocomplete: 'email',
        maxlength: 254,
        value: view.email ?? '',
      })}
      ${formField({
        id: 'password',
        name: 'password',
        label: 'Password',
        type: 'password',
        autocomplete: 'new-password',
        required: true,
        minlength: view.passwordMinLength,
        maxlength: 1024,
        hint: `At least ${view.passwordMinLength} characters; the most common passwords are refused.`,
      })}
      <button type="submit">Create account and sign in</button>
    </form>
  </div>`;
  return layout(ctx, { title: errorId ? 'Account not created' : 'Create your account', body });
}
