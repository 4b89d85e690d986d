import type { Routes } from '../../http/routes.js';
import type { RouteReply } from '../../http/route-reply.js';
import { checkCsrf } from '../csrf.js';
import { formOf } from '../forms.js';
import { sendPage } from '../html-responses.js';
import { html } from '../html.js';
import { messagePage } from '../pages/message-page.js';
import { npmLoginPage } from '../pages/npm-login-page.js';
import type { PageContext } from '../pages/page-context.js';
import { checkSignIn, startBrowserSession } from '../sign-in.js';
import { pageContext } from '../viewer.js';
import type { WebServices } from '../web-services.js';

const COMPLETE = '/-/web/login-complete';

/** The browser side of npm's web login: the page behind loginUrl, and its form. */
export function npmLoginPageRoutes(app: Routes, { web }: { web: WebServices }): void {
  app.get<{ Params: { secret: string } }>('/-/web/login/:secret', async (request, reply) => {
    const ctx = await pageContext(request, reply, web);
    const pending = await web.registry.npmLogin.pending(request.ctx.tenant, request.params.secret);
    if (!pending) return gone(reply, ctx);
    const { signup } = request.ctx.settings;
    return sendPage(reply, npmLoginPage(ctx, { action: request.url, pending, signup }), 200, 'no-store');
  });

  app.post<{ Params: { secret: string }; Body: Record<string, string> }>('/-/web/login/:secret', async (request, reply) => {
    const form = formOf(request.body);
    checkCsrf(request, form.csrf);
    const ctx = await pageContext(request, reply, web);
    const tenant = request.ctx.tenant;
    const pending = await web.registry.npmLogin.pending(tenant, request.params.secret);
    if (!pending) return gone(reply, ctx);

    let user: string;
    if (form.continue === '1' && ctx.viewer) {
      user = ctx.viewer;
    } else {
      const outcome = await checkSignIn(request, web, form);
      if (!outcome.ok) {
        const { signup } = request.ctx.settings;
        const page = npmLoginPage(ctx, { action: request.url, pending, signup, name: outcome.name, error: outcome.error });
        return sendPage(reply, page, outcome.status, 'no-store');
      }
      user = outcome.user;
    }
    if (!(await web.registry.npmLogin.approve(tenant, request.params.secret, user))) return gone(reply, ctx);
    if (ctx.viewer !== user) await startBrowserSession(request, reply, web, user);
    return reply.redirect(COMPLETE, 303);
  });

  app.get(COMPLETE, async (request, reply) => {
    const ctx = await pageContext(request, reply, web);
    const message = html`npm is now logged in${ctx.viewer ? html` as <strong>${ctx.viewer}</strong>` : ''}. You can close this
    window and return to the terminal.`;
    return sendPage(reply, messagePage(ctx, 'Logged in', message, 'ok'), 200, 'no-store');
  });
}

function gone(reply: RouteReply, ctx: PageContext): RouteReply {
  const message = html`This login link has expired or was already used. Run <code>npm login</code> again to get a new one.`;
  return sendPage(reply, messagePage(ctx, 'Login link expired', message, 'error'), 404, 'no-store');
}
