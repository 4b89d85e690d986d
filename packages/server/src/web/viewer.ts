import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';
import { readCookie } from './cookies.js';
import { csrfTokenFor } from './csrf.js';
import type { PageContext } from './pages/page-context.js';
import type { WebServices } from './web-services.js';

/** The page context of a request: who is signed in (by session cookie) and the form token. */
export async function pageContext(request: RouteRequest, reply: RouteReply, web: WebServices): Promise<PageContext> {
  const viewer = await web.registry.browserSessions.userOf(request.ctx.tenant, readCookie(request, 'session'));
  // The audit log names who sent a refused form (an accepted one notes its user itself).
  if (viewer !== undefined) request.sessionUser = viewer;
  return {
    assets: web.assets,
    tenant: request.ctx.tenant,
    host: new URL(request.ctx.baseUrl).host,
    viewer,
    csrf: csrfTokenFor(request, reply),
    now: web.now(),
  };
}

/**
 * Registries that require a token for reads show their packages only to signed-in users; the
 * others are public. Answers whether the page may be shown; otherwise it has redirected.
 */
export async function mayRead(request: RouteRequest, reply: RouteReply, web: WebServices, ctx: PageContext): Promise<boolean> {
  if (ctx.viewer) return true;
  if (request.ctx.settings.readAccess !== 'token') return true;
  reply.redirect(`/-/web/signin?next=${encodeURIComponent(request.url)}`, 303);
  return false;
}
