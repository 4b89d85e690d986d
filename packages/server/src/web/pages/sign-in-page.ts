import { html } from '../html.js';
import { layout } from './layout.js';
import type { PageContext } from './page-context.js';
import { signInForm } from './sign-in-form.js';

export interface SignInView {
  signup: boolean;
  next: string;
  name?: string;
  error?: string;
}

export function signInPage(ctx: PageContext, view: SignInView): string {
  const body = html`<div class="card">
    <h1>Sign in</h1>
    <p class="muted">Sign in to see and revoke your access tokens.</p>
    ${signInForm({ action: '/-/web/signin', csrf: ctx.csrf, submitLabel: 'Sign in', ...view })}
  </div>`;
  return layout(ctx, { title: view.error ? 'Sign-in failed' : 'Sign in', body });
}
