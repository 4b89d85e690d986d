import type { FastifyInstance } from 'fastify';
import type { RequestContext } from '../context.js';
import type { ClientAddressing } from '../http/client-address.js';
import type { RequestContextResolver } from '../http/request-context.js';

/**
 * Resolves, before any route runs, which registry a request is for, its public base URL and its
 * caller (http/request-context.ts). Routes that need a user answer 401 when there is none.
 */
export function installRequestContext(
  app: FastifyInstance,
  contexts: RequestContextResolver,
  addressing: ClientAddressing,
): void {
  app.decorateRequest('ctx', null as unknown as RequestContext);
  // Callback-style: most requests get their context without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    let resolved;
    try {
      resolved = contexts.resolve({
        host: addressing.host(request.raw),
        protocol: addressing.protocol(request.raw),
        authorization: request.headers.authorization,
      });
    } catch (err) {
      return done(err as Error);
    }
    if (!(resolved instanceof Promise)) {
      request.ctx = resolved;
      return done();
    }
    resolved.then((ctx) => {
      request.ctx = ctx;
      done();
    }, done);
  });
}
