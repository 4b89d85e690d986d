import type { FastifyInstance } from 'fastify';
import { readAccessDenial } from '../http/access.js';

/** Refuses requests that the registry's `readAccess` setting does not allow (http/access.ts). */
export function installAccessControl(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(readAccessDenial(request.ctx, request.routeOptions.config?.openAccess === true));
  });
}
