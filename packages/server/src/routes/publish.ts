import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { isPublishBody } from '../services/publish-request.js';
import type { Services } from '../services/services.js';
import { packageNameParam, requireWriter } from './guards.js';

const MiB = 1024 * 1024;

/**
 * Body limit of the routes that take a whole package document: the tarball travels base64
 * inside the JSON (4/3 of its size), plus room for the document itself.
 */
export function documentBodyLimit(config: Config): number {
  return Math.ceil((config.maxTarballSize * 4) / 3) + MiB;
}

/**
 * `PUT /<name>`: npm's publish (a body with `_attachments`), or npm's edit of the document
 * without attachments (`npm deprecate` sends the whole document back this way).
 */
export async function publishRoutes(
  app: FastifyInstance,
  { services, config }: { services: Services; config: Config },
): Promise<void> {
  app.put<{ Params: { name: string }; Body: unknown }>(
    '/:name',
    { bodyLimit: documentBodyLimit(config) },
    async (request, reply) => {
      const name = packageNameParam(request.params.name);
      const caller = requireWriter(request);
      const { tenant } = request.ctx;
      if (isPublishBody(request.body)) {
        const { created, rev } = await services.publish.publish(tenant, caller, name, request.body);
        return reply.code(created ? 201 : 200).send({ ok: true, id: name, rev });
      }
      const { rev } = await services.packageUpdates.update(tenant, caller, name, request.body, {
        rev: undefined,
        allowRemoval: false,
      });
      return reply.code(200).send({ ok: true, id: name, rev });
    },
  );
}
