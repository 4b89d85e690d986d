import { ProtocolError, checkPackageName, type PackageName } from '@pkg/protocol';
import type { Caller, RequestContext } from '../context.js';

/**
 * Who may do what, and the package name of a request, as every entry point (route or service)
 * checks them: one wording for each refusal.
 */

/** The context's authenticated caller, or 401 UNAUTHORIZED. */
export function callerOf(ctx: RequestContext): Caller {
  if (!ctx.caller) throw new ProtocolError('UNAUTHORIZED', ctx.tokenRefusal ?? 'A valid token is required: log in first');
  return ctx.caller;
}

/** A caller allowed to publish new versions: not a read-only token. */
export function publisherOf(ctx: RequestContext): Caller {
  const caller = callerOf(ctx);
  if (caller.readonly) throw readOnlyToken();
  return caller;
}

/** 403: a write with a read-only token. */
export function readOnlyToken(): ProtocolError {
  return new ProtocolError('FORBIDDEN', 'This token is read-only');
}

/** 403: what only the token of a login may do (`what`: "managing users"), asked with a limited one. */
export function loginTokenRequired(what: string): ProtocolError {
  return new ProtocolError('FORBIDDEN', `This token is limited: ${what} needs the token of a login (npm login, pkg login)`);
}

/** The caller, unless its token may only publish new versions. */
export function refusePublishOnly(caller: Caller): Caller {
  if (caller.scope?.publishOnly) {
    throw new ProtocolError(
      'FORBIDDEN',
      'This token may only publish new versions: dist-tags, owners, deprecation and unpublishing need another token',
    );
  }
  return caller;
}

/** A name from the request that must be a reverse-DNS package name, or 422 VALIDATION_ERROR. */
export function packageNameParam(value: string | undefined): PackageName {
  const check = checkPackageName(value ?? '');
  if (!check.ok) throw new ProtocolError('VALIDATION_ERROR', `Invalid package name '${truncate(value ?? '')}': ${check.rule}`);
  return check.name;
}

export function truncate(value: string, max = 80): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
