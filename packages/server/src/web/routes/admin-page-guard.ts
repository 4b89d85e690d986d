import type { RouteRequest } from '../../http/route-request.js';
import type { RouteReply } from '../../http/route-reply.js';
import { sendPage } from '../html-responses.js';
import { messagePage } from '../pages/message-page.js';
import type { PageContext } from '../pages/page-context.js';
import type { WebServices } from '../web-services.js';

/**
 * Answers a viewer who may not use an administrators' page (services/administrators.ts decides
 * who they are) and says so with true; false when they may. Nobody signed in is sent to sign in
 * (and back to `page.path`); anyone else signed in gets 403 saying who may. A boolean, not the
 * reply, so that a caller cannot mistake a sent reply for a decision.
 */
export async function administratorRefusal(
  request: RouteRequest,
  reply: RouteReply,
  web: WebServices,
  ctx: PageContext,
  page: { path: string; title: string; what: string },
): Promise<boolean> {
  if (!ctx.viewer) {
    reply.redirect(`/-/web/signin?next=${encodeURIComponent(page.path)}`, 303);
    return true;
  }
  if (await web.registry.administrators.is(request.ctx.tenant, { user: ctx.viewer, readonly: false })) return false;
  const message = `Only an administrator of this registry may ${page.what}; the server’s operator can with pkg-registry.`;
  // A refused form is in the audit log with this reason (plugins/change-recording.ts).
  request.refusal = message;
  sendPage(reply, messagePage(ctx, page.title, message, 'error', `${page.title}: not allowed`), 403, 'no-store');
  return true;
}
