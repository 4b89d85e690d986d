import type { RequestContext } from '../context.js';
import type { ClientAddressing } from '../http/client-address.js';
import type { RequestContextResolver } from '../http/request-context.js';
import type { BeforeStepRun, Step, StepRequest } from '../http/request-steps.js';

/**
 * Resolves, before any route runs, which registry a request is for, its public base URL and its
 * caller (http/request-context.ts). Routes that need a user answer 401 when there is none.
 */
export function requestContextStep(contexts: RequestContextResolver, addressing: ClientAddressing): Step<BeforeStepRun> {
  return {
    name: 'requestContext',
    // Most requests get their context without a promise.
    run(request) {
      const raw = request.raw;
      const resolved = contexts.resolve({
        host: addressing.host(raw),
        protocol: addressing.protocol(raw),
        authorization: raw.headers.authorization,
        clientIp: () => request.ip,
        basic: request.routeOptions.config?.openAccess !== true,
      });
      if (!(resolved instanceof Promise)) {
        request.ctx = resolved;
        return undefined;
      }
      return resolved.then((ctx) => setContext(request, ctx));
    },
  };
}

function setContext(request: StepRequest, ctx: RequestContext): undefined {
  request.ctx = ctx;
  return undefined;
}
