import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '@pkg/protocol';

/**
 * `readAccess: token`: on such a registry every request needs a valid token, reads included,
 * except the routes marked `openAccess` (login, logout, ping). Unknown routes need one too, so
 * that an anonymous caller learns nothing about what exists.
 */
export function installAccessControl(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.ctx.settings.readAccess !== 'token' || request.ctx.caller) return;
    if (request.routeOptions.config?.openAccess === true) return;
    throw new ProtocolError('UNAUTHORIZED', 'This registry requires a token for every request: log in first');
  });
}
