import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPage } from '../html-responses.js';
import { messagePage } from '../pages/message-page.js';
import type { PageContext } from '../pages/page-context.js';
import type { WebServices } from '../web-services.js';

/**
 * The answer for a viewer who may not use an administrators' page (services/administrators.ts
 * decides who they are), or undefined when they may: nobody signed in is sent to sign in
 * (and back to `page.path`); anyone else signed in gets 403 saying who may.
 */
export async function administratorRefusal(
  request: FastifyRequest,
  reply: FastifyReply,
  web: WebServices,
  ctx: PageContext,
  page: { path: string; title: string; what: string },
): Promise<FastifyReply | undefined> {
  if (!ctx.viewer) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(page.path)}`, 303);
  if (await web.registry.administrators.is(request.ctx.tenant, { user: ctx.viewer, readonly: false })) return undefined;
  const message = `Only an administrator of this registry may ${page.what}; the server’s operator can with pkg-registry.`;
  return sendPage(reply, messagePage(ctx, page.title, message, 'error', `${page.title}: not allowed`), 403, 'no-store');
}
