import type { RouteRequest } from '../http/route-request.js';
import type { Caller } from '../context.js';
import { OTP_HEADER } from '../services/second-factor.js';
import type { Services } from '../services/services.js';

/** A write's second factor (services/second-factor.ts: requireWriteCode), with the request's code. */
export async function requireWriteCode(services: Services, request: RouteRequest, caller: Caller, why: string): Promise<void> {
  await services.secondFactors.requireWriteCode(request.ctx.tenant, caller, otpOf(request), why);
}

/** The one-time password a request carries. */
export function otpOf(request: RouteRequest): string | undefined {
  const value = request.headers[OTP_HEADER];
  return typeof value === 'string' ? value : undefined;
}
