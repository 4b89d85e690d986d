import type { FastifyRequest } from 'fastify';
import type { Caller } from '../context.js';
import { OTP_HEADER } from '../services/second-factor.js';
import type { Services } from '../services/services.js';

/**
 * A write by a user whose two-factor mode is `auth-and-writes` needs a one-time password in
 * `npm-otp` (npm asks for it on the 401 this answers without one, and sends the request again);
 * automation tokens are never asked, as npm's are not.
 */
export async function requireWriteCode(services: Services, request: FastifyRequest, caller: Caller, why: string): Promise<void> {
  if (caller.secondFactor !== 'auth-and-writes' || caller.scope?.automation) return;
  const user = await services.auth.getUser(request.ctx.tenant, caller.user);
  if (user) await services.secondFactors.check(request.ctx.tenant, user, otpOf(request), why);
}

/** The one-time password a request carries. */
export function otpOf(request: FastifyRequest): string | undefined {
  const value = request.headers[OTP_HEADER];
  return typeof value === 'string' ? value : undefined;
}
