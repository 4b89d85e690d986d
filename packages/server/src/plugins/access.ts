import { readAccessDenial } from '../http/access.js';
import type { BeforeStepRun, Step } from '../http/request-steps.js';

/** Refuses requests that the registry's `readAccess` setting does not allow (http/access.ts). */
export const readAccessStep: Step<BeforeStepRun> = {
  name: 'readAccess',
  run: (request) => readAccessDenial(request.ctx, request.routeOptions.config?.openAccess === true),
};
