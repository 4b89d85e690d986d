import type { Routes } from '../http/routes.js';
import { packageNotFound } from '@pkg/protocol';
import type { Services } from '../services/services.js';
import { packageNameParam } from './guards.js';

/**
 * npm's provenance endpoints: `GET /-/npm/v1/attestations/<name>@<version>` (what
 * `dist.attestations.url` names) and `GET /-/package/<name>/visibility`, which npm asks before
 * a publish with provenance (provenance is only made for public packages).
 */
export function attestationRoutes(app: Routes, { services }: { services: Services }): void {
  app.get<{ Params: { spec: string } }>('/-/npm/v1/attestations/:spec', async (request, reply) => {
    const spec = request.params.spec;
    const at = spec.lastIndexOf('@');
    const name = packageNameParam(at > 0 ? spec.slice(0, at) : spec);
    const answer = await services.attestations.attestations(
      request.ctx.tenant,
      name,
      at > 0 ? spec.slice(at + 1) : '',
      request.ctx.baseUrl,
      request.ctx.settings.uplinks?.match(name),
    );
    // A proxied package's: the upstream's bytes as they came.
    if (Buffer.isBuffer(answer)) reply.type('application/json');
    return answer;
  });

  app.get<{ Params: { name: string } }>('/-/package/:name/visibility', async (request) => {
    const name = packageNameParam(request.params.name);
    const stored = await services.packageReads.stored(request.ctx.tenant, name);
    if (!stored || stored.unpublished) throw packageNotFound(name);
    return { public: request.ctx.settings.readAccess !== 'token' };
  });
}
