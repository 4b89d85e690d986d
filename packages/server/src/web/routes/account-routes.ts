import type { Routes } from '../../http/routes.js';
import type { RouteRequest } from '../../http/route-request.js';
import { ProtocolError } from '@pkg/protocol';
import { clearCookie, readCookie } from '../cookies.js';
import { checkCsrf } from '../csrf.js';
import { formOf, type Form } from '../forms.js';
import { sendPage } from '../html-responses.js';
import { accountPage, type AccountView } from '../pages/account-page.js';
import type { PageContext } from '../pages/page-context.js';
import { parseTokenBody } from '../../routes/token-body.js';
import { signInPage } from '../pages/sign-in-page.js';
import { checkSignIn, localPath, startBrowserSession } from '../sign-in.js';
import { pageContext } from '../viewer.js';
import { twoFactorRoutes, twoFactorViewOf } from './two-factor-routes.js';
import type { WebServices } from '../web-services.js';
import { noteChange, noteTokenCreated } from '../../plugins/change-recording.js';

const ACCOUNT = '/-/web/account';

/** Signing in and out of the web interface, and the account page with the user's tokens. */
export function accountRoutes(app: Routes, { web }: { web: WebServices }): void {
  app.get<{ Querystring: Record<string, unknown> }>('/-/web/signin', async (request, reply) => {
    const next = localPath(typeof request.query.next === 'string' ? request.query.next : undefined, ACCOUNT);
    const ctx = await pageContext(request, reply, web);
    if (ctx.viewer) return reply.redirect(next, 303);
    const { signup } = request.ctx.settings;
    return sendPage(reply, signInPage(ctx, { signup, next }), 200, 'no-store');
  });

  app.post<{ Body: Form }>('/-/web/signin', async (request, reply) => {
    const form = formOf(request.body);
    checkCsrf(request, form.csrf);
    const next = localPath(form.next, ACCOUNT);
    const outcome = await checkSignIn(request, web, form);
    if (!outcome.ok) {
      const ctx = await pageContext(request, reply, web);
      const { signup } = request.ctx.settings;
      return sendPage(
        reply,
        signInPage(ctx, { signup, next, name: outcome.name, error: outcome.error }),
        outcome.status,
        'no-store',
      );
    }
    await startBrowserSession(request, reply, web, outcome.user);
    return reply.redirect(next, 303);
  });

  app.post<{ Body: Form }>('/-/web/signout', async (request, reply) => {
    checkCsrf(request, formOf(request.body).csrf);
    await web.registry.browserSessions.end(request.ctx.tenant, readCookie(request, 'session'));
    clearCookie(request, reply, 'session');
    return reply.redirect('/', 303);
  });

  app.get<{ Querystring: Record<string, unknown> }>(ACCOUNT, async (request, reply) => {
    const ctx = await pageContext(request, reply, web);
    if (!ctx.viewer) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(ACCOUNT)}`, 303);
    const notice =
      request.query.revoked === '1'
        ? 'The token was revoked.'
        : request.query.welcome === '1'
          ? 'Welcome: your account is ready.'
          : undefined;
    return sendPage(reply, await account(request, ctx, { ...(notice ? { notice } : {}) }), 200, 'no-store');
  });

  app.post<{ Body: Form }>(`${ACCOUNT}/tokens`, async (request, reply) => {
    const form = formOf(request.body);
    checkCsrf(request, form.csrf);
    const ctx = await pageContext(request, reply, web);
    if (!ctx.viewer) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(ACCOUNT)}`, 303);
    const { password: _password, csrf: _csrf, ...kept } = form;
    try {
      const input = parseTokenBody(tokenBodyOf(form), request.ip);
      // A web session is its user's full sign-in, as a login's token is.
      const { token, summary } = await web.registry.tokens.create(
        request.ctx.tenant,
        { user: ctx.viewer, readonly: false },
        input,
      );
      noteTokenCreated(request, summary, ctx.viewer);
      const page = await account(request, ctx, { created: { token, id: summary.id }, notice: 'Token created.' });
      return sendPage(reply, page, 201, 'no-store');
    } catch (err) {
      if (!(err instanceof ProtocolError) || err.status >= 500 || err.status === 429) throw err;
      const page = await account(request, ctx, { formError: err.details || err.message, form: kept });
      return sendPage(reply, page, err.status, 'no-store');
    }
  });

  /** The account page of the signed-in viewer, with its tokens and second factor as they are now. */
  async function account(request: RouteRequest, ctx: PageContext, extra: Partial<AccountView>): Promise<string> {
    const viewer = ctx.viewer!;
    const [user, tokens, teams] = await Promise.all([
      web.registry.auth.getUser(request.ctx.tenant, viewer),
      web.registry.auth.listTokens(request.ctx.tenant, viewer),
      web.registry.teams.teamsOf(request.ctx.tenant, viewer),
    ]);
    const twoFactor = extra.twoFactor ?? twoFactorViewOf(web, user, new URL(request.ctx.baseUrl).host);
    return accountPage(ctx, { user: viewer, email: user?.email ?? '', tokens, teams, ...extra, twoFactor });
  }

  twoFactorRoutes(app, { web, account });

  app.post<{ Body: Form }>(`${ACCOUNT}/tokens/revoke`, async (request, reply) => {
    const form = formOf(request.body);
    checkCsrf(request, form.csrf);
    const user = await web.registry.browserSessions.userOf(request.ctx.tenant, readCookie(request, 'session'));
    if (!user) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(ACCOUNT)}`, 303);
    if (!(await web.registry.auth.revokeToken(request.ctx.tenant, user, form.id ?? ''))) {
      throw new ProtocolError('NOT_FOUND', 'You have no token with that id (it may be revoked already)');
    }
    noteChange(request, { action: 'token.revoke', target: `token ${form.id ?? ''}`, user });
    return reply.redirect(`${ACCOUNT}?revoked=1`, 303);
  });
}

/** The token form as the body `POST /-/npm/v1/tokens` takes (the same checks, the same errors). */
function tokenBodyOf(form: Form): Record<string, unknown> {
  const list = (value: string | undefined) => {
    const items = (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
    return items.length > 0 ? items : undefined;
  };
  const expires = form.expires?.trim();
  return {
    password: form.password ?? '',
    name: form.name?.trim() || undefined,
    readonly: form.access === 'readonly',
    publish_only: form.access === 'publishOnly',
    automation: form.automation === '1',
    packages: list(form.packages),
    cidr_whitelist: list(form.cidr),
    expires: expires ? (/^\d+$/.test(expires) ? Number(expires) : expires) : undefined,
  };
}
