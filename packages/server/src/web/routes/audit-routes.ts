import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '@pkg/protocol';
import { parseAuditQuery, type AuditFilters } from '../../services/audit-query.js';
import { sendPage } from '../html-responses.js';
import { AUDIT_FILTERS, AUDIT_PAGE, auditPage, type AuditView } from '../pages/audit-page.js';
import { messagePage } from '../pages/message-page.js';
import type { PageContext } from '../pages/page-context.js';
import { WEBHOOKS_PAGE, webhooksPage } from '../pages/webhooks-page.js';
import { pageContext } from '../viewer.js';
import type { WebServices } from '../web-services.js';

/**
 * The audit log's and the webhooks' pages, for the registry's administrators
 * (services/audit-access.ts decides who they are). Anyone else signed in gets 403 saying who
 * may; nobody signed in is sent to sign in.
 */
export async function auditPageRoutes(app: FastifyInstance, { web }: { web: WebServices }): Promise<void> {
  /** The answer for a viewer who may not see the page, or undefined when they may. */
  async function refusal(
    request: FastifyRequest,
    reply: FastifyReply,
    ctx: PageContext,
    page: { path: string; title: string; what: string },
  ) {
    if (!ctx.viewer) return reply.redirect(`/-/web/signin?next=${encodeURIComponent(page.path)}`, 303);
    if (await web.registry.administrators.is(request.ctx.tenant, { user: ctx.viewer, readonly: false })) return undefined;
    const message = `Only an administrator of this registry may ${page.what}; the server’s operator can with pkg-registry.`;
    return sendPage(reply, messagePage(ctx, page.title, message, 'error', `${page.title}: not allowed`), 403, 'no-store');
  }

  app.get(WEBHOOKS_PAGE, async (request, reply) => {
    const ctx = await pageContext(request, reply, web);
    const refused = await refusal(request, reply, ctx, { path: WEBHOOKS_PAGE, title: 'Webhooks', what: 'see its webhooks' });
    if (refused) return refused;
    const { tenant } = request.ctx;
    const hooks = await web.registry.webhooks.list(tenant);
    const view = await Promise.all(
      hooks.map(async (hook) => ({ hook, deliveries: await web.registry.webhooks.deliveries(tenant, hook.id, 10) })),
    );
    return sendPage(reply, webhooksPage(ctx, { hooks: view }), 200, 'no-store');
  });

  app.get<{ Querystring: Record<string, unknown> }>(AUDIT_PAGE, async (request, reply) => {
    const ctx = await pageContext(request, reply, web);
    const refused = await refusal(request, reply, ctx, { path: AUDIT_PAGE, title: 'Audit log', what: 'read its audit log' });
    if (refused) return refused;
    const filters: AuditView['filters'] = {};
    for (const name of AUDIT_FILTERS) {
      const value = request.query[name];
      if (typeof value === 'string' && value !== '') filters[name] = value;
    }
    const before = typeof request.query.before === 'string' ? request.query.before : undefined;
    try {
      const query = parseAuditQuery({ ...(filters as AuditFilters), ...(before ? { before } : {}) });
      const entries = await web.registry.audit.query(request.ctx.tenant, query);
      const next = entries.length === query.limit ? (entries.at(-1)?.id ?? null) : null;
      return sendPage(reply, auditPage(ctx, { entries, filters, next }), 200, 'no-store');
    } catch (err) {
      if (!(err instanceof ProtocolError) || err.status >= 500) throw err;
      return sendPage(
        reply,
        auditPage(ctx, { entries: [], filters, next: null, error: err.details || err.message }),
        err.status,
        'no-store',
      );
    }
  });
}
