import type { Routes } from '../../http/routes.js';
import { ProtocolError } from '@pkg/protocol';
import { parseAuditQuery, type AuditFilters } from '../../services/audit-query.js';
import { sendPage } from '../html-responses.js';
import { AUDIT_FILTERS, AUDIT_PAGE, auditPage, type AuditView } from '../pages/audit-page.js';
import { administratorRefusal } from './admin-page-guard.js';
import { pageContext } from '../viewer.js';
import type { WebServices } from '../web-services.js';

/** The audit log's page, for the registry's administrators (admin-page-guard.ts). */
export function auditPageRoutes(app: Routes, { web }: { web: WebServices }): void {
  app.get<{ Querystring: Record<string, unknown> }>(AUDIT_PAGE, async (request, reply) => {
    const ctx = await pageContext(request, reply, web);
    const refused = await administratorRefusal(request, reply, web, ctx, {
      path: AUDIT_PAGE,
      title: 'Audit log',
      what: 'read its audit log',
    });
    if (refused) return reply;
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
