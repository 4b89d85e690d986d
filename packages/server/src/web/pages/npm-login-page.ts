import { CSRF_FIELD } from '../csrf.js';
import { html } from '../html.js';
import type { PendingNpmLogin } from '../../services/npm-web-login.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';
import { signInForm } from './sign-in-form.js';

export interface NpmLoginView {
  action: string;
  pending: PendingNpmLogin;
  signup: boolean;
  name?: string;
  error?: string;
}

/**
 * The page npm's login URL opens. It says plainly what signing in does (it hands a token to the
 * terminal that ran `npm login`) and who asked, because a login URL sent by someone else is
 * the way this flow gets abused.
 */
export function npmLoginPage(ctx: PageContext, view: NpmLoginView): string {
  const { pending } = view;
  const body = html`<div class="card">
    <h1>${pending.create ? 'Create an account for npm' : 'Sign in to npm'}</h1>
    <p>A command line asked to log in to <strong>${ctx.tenant || ctx.host}</strong>:</p>
    <dl class="facts">
      <dt>Client</dt>
      <dd><code>${pending.client || 'unknown'}</code></dd>
      <dt>From</dt>
      <dd>${pending.ip || 'unknown'}</dd>
      <dt>At</dt>
      <dd><time datetime="${pending.createdAt}">${pending.createdAt.replace('T', ' ').slice(0, 19)} UTC</time></dd>
    </dl>
    <div class="notice" role="note">
      Continue only if you just ran <code>npm login</code> yourself. The terminal that started it receives an access token for
      your account.
    </div>
    ${
      ctx.viewer && !view.error
        ? html`<form method="post" action="${view.action}">
              <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" />
              <input type="hidden" name="continue" value="1" />
              <button type="submit">Continue as ${ctx.viewer}</button>
            </form>
            <h2>Or sign in as someone else</h2>`
        : ''
    }
    ${signInForm({
      action: view.action,
      csrf: ctx.csrf,
      signup: view.signup || pending.create,
      submitLabel: 'Sign in and log in npm',
      ...(view.name !== undefined ? { name: view.name } : {}),
      ...(view.error !== undefined ? { error: view.error } : {}),
    })}
  </div>`;
  return layout(ctx, { title: 'npm login', body });
}
