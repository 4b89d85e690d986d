import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/services.js';

/**
 * `GET /-/npm/v1/keys`: the registry's public signing keys in npm's format, rotated ones with
 * their `expires` (npm's `audit signatures` and corepack read it).
 */
export async function signingKeyRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  app.get('/-/npm/v1/keys', async (request, reply) => {
    reply.header('cache-control', 'no-cache');
    return { keys: await services.signatures.publicKeys(request.ctx.tenant) };
  });
}
