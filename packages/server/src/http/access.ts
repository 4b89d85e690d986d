import { ProtocolError } from '@pkg/protocol';
import type { RequestContext } from '../context.js';

/**
 * Refused credentials (a wrong name or password sent as Basic) are answered on every route.
 * `readAccess: token`: on such a registry every request needs a valid token, reads included,
 * except routes open to all (login, logout, ping). Unknown routes need one too, so that an
 * anonymous caller learns nothing about what exists. The error to answer, or undefined.
 */
export function readAccessDenial(ctx: RequestContext, openAccess: boolean): Error | undefined {
  if (ctx.credentialError) return ctx.credentialError;
  if (ctx.settings.readAccess !== 'token' || ctx.caller || openAccess) return undefined;
  return new ProtocolError('UNAUTHORIZED', ctx.tokenRefusal ?? 'This registry requires a token for every request: log in first');
}
