import type { Routes } from '../http/routes.js';
import { JSON_TYPE } from '../services/package-reads.js';
import { Representation } from '../services/representation.js';
import type { Services } from '../services/services.js';
import { packageNameParam, requireWriter } from './guards.js';
import { requireWriteCode } from './second-factor-guard.js';
import { sendRepresentation } from './send-representation.js';
import { noteChange } from '../plugins/change-recording.js';

/** `GET /-/package/<name>/dist-tags`, `PUT` and `DELETE /-/package/<name>/dist-tags/<tag>`. */
export function distTagRoutes(app: Routes, { services }: { services: Services }): void {
  app.get<{ Params: { name: string } }>('/-/package/:name/dist-tags', async (request, reply) => {
    const name = packageNameParam(request.params.name);
    const tags = await services.distTags.list(request.ctx.tenant, name);
    // npm reads tags right before changing them: always revalidate.
    return sendRepresentation(request, reply, Representation.json(tags, JSON_TYPE), { cacheControl: 'no-cache' });
  });

  // The body is a JSON string holding the version, e.g. "1.2.0".
  app.put<{ Params: { name: string; tag: string }; Body: unknown }>('/-/package/:name/dist-tags/:tag', async (request) => {
    const name = packageNameParam(request.params.name);
    const caller = requireWriter(request);
    await requireWriteCode(services, request, caller, 'Changing a dist-tag');
    await services.distTags.set(request.ctx.tenant, caller, name, request.params.tag, request.body);
    const { tag } = request.params;
    noteChange(request, {
      action: 'dist-tag.set',
      package: name,
      target: `${name} tag ${tag}`,
      details: { tag, version: request.body },
    });
    return { ok: true };
  });

  app.delete<{ Params: { name: string; tag: string } }>('/-/package/:name/dist-tags/:tag', async (request) => {
    const name = packageNameParam(request.params.name);
    const caller = requireWriter(request);
    await requireWriteCode(services, request, caller, 'Changing a dist-tag');
    await services.distTags.remove(request.ctx.tenant, caller, name, request.params.tag);
    noteChange(request, {
      action: 'dist-tag.remove',
      package: name,
      target: `${name} tag ${request.params.tag}`,
      details: { tag: request.params.tag },
    });
    return { ok: true };
  });
}
