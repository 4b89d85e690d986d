import type { BeforeStepRun, Step, StepRequest } from '../http/request-steps.js';
import { addressAllowed, addressRefusal, packageAllowed, packageRefusal } from '../services/token-scope.js';
import type { TokenUseRecorder } from '../services/token-uses.js';

/**
 * Notes each token's use (written in batches: services/token-uses.ts) and refuses what its limits
 * do not allow: a request from outside its addresses, and any route about a package outside
 * its packages (documents, versions, tarballs, dist-tags, downloads, publish and every other
 * write), on every route. Search and `/-/all` filter their results
 * instead (routes/search.ts); publish-only is the write guards' (routes/guards.ts).
 */
export function tokenLimitsStep(uses: TokenUseRecorder): Step<BeforeStepRun> {
  return {
    name: 'tokenLimits',
    run(request) {
      const caller = request.ctx.caller;
      if (caller?.tokenHash === undefined) return undefined;
      uses.note(request.ctx.tenant, caller.tokenHash, request.ip);
      const scope = caller.scope;
      if (scope === undefined) return undefined;
      if (!addressAllowed(scope, request.ip)) return addressRefusal(scope, request.ip);
      const name = packageParam(request);
      if (name !== undefined && !packageAllowed(scope, name)) return packageRefusal(scope, name);
      return undefined;
    },
  };
}

/** The package a route is about: its `:name` parameter, as the router gives it. */
function packageParam(request: StepRequest): string | undefined {
  const name = (request.params as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}
