import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';

/**
 * Refuses every write (publish, dist-tags, deprecate, unpublish, owners) to a package name an
 * uplink covers: a namespace is either local or proxied, so nobody can publish here a name that
 * builds expect from the upstream (dependency confusion), and versions are never merged.
 */
export function installUplinkGuard(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const method = request.method;
    if (method === 'GET' || method === 'HEAD') return done();
    const name = (request.params as { name?: unknown } | undefined)?.name;
    const uplink = typeof name === 'string' ? request.ctx.settings.uplinks?.match(name) : undefined;
    if (uplink === undefined) return done();
    done(
      new ProtocolError(
        'FORBIDDEN',
        `'${name as string}' is served from the upstream registry '${uplink.name}' (uplink): it cannot be published or changed here`,
      ),
    );
  });
}
