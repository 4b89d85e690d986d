import type { Routes } from '../http/routes.js';
import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';
import { ProtocolError } from '@pkg/protocol';
import type { Services } from '../services/services.js';
import type { AdvisoryRecord } from '../storage/ports.js';
import { packageNameParam, requireWriter, truncate } from './guards.js';
import { noteChange } from '../plugins/change-recording.js';

/** Where an advisory without a link of its own points: its entry on the package's advisories page. */
function advisoryUrl(request: RouteRequest): (advisory: AdvisoryRecord) => string {
  return (advisory) =>
    `${request.ctx.baseUrl}/-/web/package/${advisory.name}/advisories#advisory-${encodeURIComponent(advisory.id)}`;
}

/** The advisory as our API shows it (npm's field names where npm has one). */
function shown(advisory: AdvisoryRecord, url: string) {
  return {
    id: advisory.id,
    name: advisory.name,
    severity: advisory.severity,
    vulnerable_versions: advisory.vulnerableVersions,
    patched_versions: advisory.patchedVersions,
    title: advisory.title,
    description: advisory.description,
    url: advisory.url ?? url,
    published_by: advisory.publishedBy,
    published: advisory.publishedAt,
    updated: advisory.updatedAt,
    withdrawn: advisory.withdrawnAt,
  };
}

/**
 * Security advisories: `/-/pkg/v1/advisories/<package>` to list, publish and withdraw them;
 * npm's bulk advisory and quick-audit endpoints that `npm audit` asks.
 */
export function advisoryRoutes(app: Routes, { services }: { services: Services }): void {
  app.get<{ Params: { name: string }; Querystring: { withdrawn?: string } }>('/-/pkg/v1/advisories/:name', async (request) => {
    const name = packageNameParam(request.params.name);
    const withdrawn = request.query.withdrawn;
    if (withdrawn !== undefined && withdrawn !== 'true' && withdrawn !== 'false') {
      throw new ProtocolError('BAD_REQUEST', "'withdrawn' must be true or false");
    }
    const url = advisoryUrl(request);
    const list = await services.advisories.list(request.ctx.tenant, name, { withdrawn: withdrawn === 'true' });
    return { advisories: list.map((a) => shown(a, url(a))) };
  });

  app.post<{ Params: { name: string } }>('/-/pkg/v1/advisories/:name', async (request, reply) => {
    const caller = requireWriter(request);
    const name = packageNameParam(request.params.name);
    const { advisory, created } = await services.advisories.publish(request.ctx.tenant, caller, name, request.body);
    noteChange(request, {
      action: 'advisory.publish',
      package: name,
      target: `${name} advisory ${advisory.id}`,
      details: { id: advisory.id, severity: advisory.severity, vulnerableVersions: advisory.vulnerableVersions, created },
    });
    reply.code(created ? 201 : 200);
    return shown(advisory, advisoryUrl(request)(advisory));
  });

  app.delete<{ Params: { name: string; id: string } }>('/-/pkg/v1/advisories/:name/:id', async (request) => {
    const caller = requireWriter(request);
    const name = packageNameParam(request.params.name);
    if (request.params.id.length > 64)
      throw new ProtocolError('NOT_FOUND', `'${name}' has no advisory '${truncate(request.params.id)}'`);
    const advisory = await services.advisories.withdraw(request.ctx.tenant, caller, name, request.params.id);
    noteChange(request, {
      action: 'advisory.withdraw',
      package: name,
      target: `${name} advisory ${advisory.id}`,
      details: { id: advisory.id },
    });
    return shown(advisory, advisoryUrl(request)(advisory));
  });

  // An upstream that could not be asked is said in `npm-notice`, which npm prints as a notice.
  const audit =
    (kind: 'bulk' | 'quick') =>
    async (request: RouteRequest, reply: RouteReply): Promise<unknown> => {
      const { tenant, settings } = request.ctx;
      const { answer, notes } = await services.advisories[kind](tenant, request.body, advisoryUrl(request), settings.uplinks);
      if (notes.length > 0) reply.header('npm-notice', notes.join(' '));
      return answer;
    };
  app.post('/-/npm/v1/security/advisories/bulk', audit('bulk'));
  app.post('/-/npm/v1/security/audits/quick', audit('quick'));
}
