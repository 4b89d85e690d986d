import type { Routes } from '../http/routes.js';
import type { Services } from '../services/services.js';
import { parseAuditQuery, type AuditFilters } from '../services/audit-query.js';
import { requireAdministrator } from './admin-guard.js';

/**
 * `GET /-/pkg/v1/audit`: the registry's audit log, newest first, for its administrators.
 * Filters as `pkg-registry audit`'s: user, package, action, outcome, since, until; `before` and
 * `limit` page (the answer's `next` is the query of the next page).
 */
export function auditRoutes(app: Routes, { services }: { services: Services }): void {
  app.get<{ Querystring: Record<string, unknown> }>('/-/pkg/v1/audit', async (request) => {
    await requireAdministrator(services, request, 'read the audit log');
    const filters: AuditFilters = {};
    for (const key of ['user', 'package', 'action', 'outcome', 'since', 'until', 'before', 'limit'] as const) {
      const value = request.query[key];
      if (typeof value === 'string') filters[key] = value;
    }
    const query = parseAuditQuery(filters);
    const entries = await services.audit.query(request.ctx.tenant, query);
    const last = entries.at(-1);
    return { entries, next: entries.length === query.limit && last ? last.id : null };
  });
}
