import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';
import { clearCookie, readCookie } from '../cookies.js';
import { checkCsrf } from '../csrf.js';
import { formOf, type Form } from '../forms.js';
import { sendPage } from '../html-responses.js';
import { accountPage } from '../pages/account-page.js';
import { signInPage } from '../pages/sign-in-page.js';
import { checkSignIn, localPath, startBrowserSession } from '../sign-in.js';
import { pageContext } from '../viewer.js';
import type { WebServices } from '../web-services.js';

const ACCOUNT = '/-/web/account';

/** Signing in and out of the web interface, and the account page with the user's tokens. */
export async function accountRoutes(app: FastifyInstance, { web }: { web: WebServices }): Promise<void> {
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
    const [user, tokens] = await Promise.all([
      web.registry.auth.getUser(request.ctx.tenant, ctx.viewer),
      web.registry.auth.listTokens(request.ctx.tenant, ctx.viewer),
    ]);
    const notice = request.query.revoked === '1' ? 'The token was revoked.' : undefined;
    return sendPage(
      reply,
      accountPage(ctx, { user: ctx.viewer, email: user?.email ?? '', tokens, ...(notice ? { notice } : {}) }),
      200,
      'no-store',
    );
  });

  app.post<{ Body: Form }>(`${ACCOUNT}/tokens/revoke`, async (request, reply) => {
    const form = formOf(request.body);
    checkCsrf(request, form.csrf);
    const user = await web.registry.browserSessions.userOf(request.ctx.tenant, readCookie(request, 'session'));
    if (!user) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(ACCOUNT)}`, 303);
    if (!(await web.registry.auth.revokeToken(request.ctx.tenant, user, form.id ?? ''))) {
      throw new ProtocolError('NOT_FOUND', 'You have no token with that id (it may be revoked already)');
    }
    return reply.redirect(`${ACCOUNT}?revoked=1`, 303);
  });
}
