import type { RouteRequest } from '../http/route-request.js';
import { ProtocolError } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { Services } from '../services/services.js';
import { requireCaller } from './guards.js';

/** The caller, when it administers this registry; 401 without credentials, 403 otherwise. */
export async function requireAdministrator(
  services: Pick<Services, 'administrators'>,
  request: RouteRequest,
  what: string,
): Promise<Caller> {
  const caller = requireCaller(request);
  if (!(await services.administrators.is(request.ctx.tenant, caller))) {
    throw new ProtocolError(
      'FORBIDDEN',
      `Only an administrator of this registry may ${what}; the server's operator can with pkg-registry on the server`,
    );
  }
  return caller;
}
