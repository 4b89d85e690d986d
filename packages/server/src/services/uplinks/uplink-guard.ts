import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ProtocolError } from '@pkg/protocol';
import type { Uplink } from '../../config/uplink-config.js';

/**
 * Refuses every write (publish, dist-tags, deprecate, unpublish, owners) to a package name an
 * uplink covers: a namespace is either local or proxied, so nobody can publish here a name that
 * builds expect from the upstream (dependency confusion), and versions are never merged.
 */
export function installUplinkGuard(app: FastifyInstance): void {
  // Only on the routes that write: a GET never runs it, so the reads' hooks stay the request
  // pipeline's steps, as the hot path runs them.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => method === 'GET' || method === 'HEAD')) return;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...existing, uplinkWriteGuard];
  });
}

function uplinkWriteGuard(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const name = (request.params as { name?: unknown } | undefined)?.name;
  const uplink = typeof name === 'string' ? request.ctx.settings.uplinks?.match(name) : undefined;
  if (uplink === undefined) return done();
  done(coveredNameRefused(name as string, uplink));
}

/** The 403 of a write to a name `uplink` covers (also of npm's `?write=true` read before one). */
export function coveredNameRefused(name: string, uplink: Uplink): ProtocolError {
  return new ProtocolError(
    'FORBIDDEN',
    `'${name}' is served from the upstream registry '${uplink.name}' (uplink): it cannot be published or changed here`,
  );
}
