import type { Routes } from '../http/routes.js';
import type { RouteRequest } from '../http/route-request.js';
import { ProtocolError } from '@pkg/protocol';
import type { Caller } from '../context.js';
import { isObject } from '../services/json-shapes.js';
import { SecondFactorService, otpRequired } from '../services/second-factor.js';
import type { Services } from '../services/services.js';
import type { UserRecord } from '../storage/ports.js';
import { requireCaller } from './guards.js';
import { otpOf } from './second-factor-guard.js';
import { noteChange } from '../plugins/change-recording.js';
import { loginTokenRequired } from '../services/caller-rules.js';

const MODES = ['auth-only', 'auth-and-writes'] as const;

/**
 * npm's profile API, as `npm profile get`, `npm profile enable-2fa [auth-only|auth-and-writes]`
 * and `npm profile disable-2fa` drive it: `GET /-/npm/v1/user`, and `POST /-/npm/v1/user` with
 * `{tfa: {mode, password}}` (the answer: an `otpauth://` URL to enrol, or the new mode when two
 * factors are in use already, which needs a code), `{tfa: [code]}` (confirms enrolment; the
 * answer lists the recovery codes) or `{tfa: {mode: "disable", password}}` (needs a code).
 */
export function profileRoutes(app: Routes, { services }: { services: Services }): void {
  app.get('/-/npm/v1/user', async (request) => profileOf(await userOf(services, request, requireCaller(request))));

  app.post<{ Body: unknown }>('/-/npm/v1/user', async (request) => {
    const caller = requireCaller(request);
    if (caller.readonly || caller.scope !== undefined) {
      throw loginTokenRequired('changing the profile');
    }
    const body = request.body;
    if (!isObject(body) || !('tfa' in body) || Object.keys(body).some((key) => key !== 'tfa')) {
      throw new ProtocolError('VALIDATION_ERROR', 'Only two-factor sign-in (tfa) can be changed here');
    }
    const { tenant } = request.ctx;
    const tfa = body.tfa;
    const user = await userOf(services, request, caller);
    if (Array.isArray(tfa)) {
      if (tfa.length !== 1) throw new ProtocolError('BAD_REQUEST', "'tfa' must hold one code");
      const confirmed = await services.secondFactors.confirm(tenant, user, tfa[0]);
      noteChange(request, { action: 'user.two-factor', target: `user ${user.name}`, details: { enabled: true } });
      return { ...profileOf(user), tfa: confirmed };
    }
    if (!isObject(tfa) || typeof tfa.password !== 'string' || typeof tfa.mode !== 'string') {
      throw new ProtocolError('BAD_REQUEST', "'tfa' must be {mode, password} or [code]");
    }
    await services.auth.confirmPassword(tenant, { name: user.name, password: tfa.password, clientIp: request.ip });
    const active = SecondFactorService.active(user);
    if (tfa.mode === 'disable') {
      if (active) await services.secondFactors.check(tenant, user, otpOf(request), 'Switching two-factor sign-in off');
      await services.secondFactors.disable(tenant, user.name);
      noteChange(request, { action: 'user.two-factor', target: `user ${user.name}`, details: { enabled: false } });
      return { ...profileOf(user), tfa: false };
    }
    const mode = MODES.find((m) => m === tfa.mode);
    if (mode === undefined)
      throw new ProtocolError(
        'VALIDATION_ERROR',
        `'${String(tfa.mode).slice(0, 40)}' is not a mode: use auth-only or auth-and-writes`,
      );
    if (active) {
      if (!otpOf(request)) throw otpRequired('Changing the two-factor mode');
      await services.secondFactors.check(tenant, user, otpOf(request), 'Changing the two-factor mode');
      await services.secondFactors.setMode(tenant, user, mode);
      noteChange(request, { action: 'user.two-factor', target: `user ${user.name}`, details: { mode } });
      return { ...profileOf(user), tfa: { mode, pending: false } };
    }
    return { tfa: await services.secondFactors.begin(tenant, user, mode, new URL(request.ctx.baseUrl).host) };
  });
}

async function userOf(services: Services, request: RouteRequest, caller: Caller): Promise<UserRecord> {
  const user = await services.auth.getUser(request.ctx.tenant, caller.user);
  if (!user || user.disabled) throw new ProtocolError('UNAUTHORIZED', 'This account no longer exists or is disabled');
  return user;
}

/** The profile as npm's registry answers it (the fields npm prints). */
function profileOf(user: UserRecord): Record<string, unknown> {
  const factor = user.secondFactor;
  return {
    name: user.name,
    email: user.email,
    email_verified: false,
    tfa: factor ? { mode: factor.mode, pending: factor.pending } : false,
    created: user.createdAt,
    updated: user.createdAt,
  };
}
