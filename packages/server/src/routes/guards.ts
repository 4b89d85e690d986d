import type { FastifyRequest } from 'fastify';
import { ProtocolError, checkPackageName, type PackageName } from '@pkg/protocol';
import type { Caller, RequestContext } from '../context.js';

/** The authenticated caller, or 401 UNAUTHORIZED. */
export function requireCaller(request: FastifyRequest): Caller {
  return callerOf(request.ctx);
}

/** The context's authenticated caller, or 401 UNAUTHORIZED. */
export function callerOf(ctx: RequestContext): Caller {
  if (!ctx.caller) throw new ProtocolError('UNAUTHORIZED', ctx.tokenRefusal ?? 'A valid token is required: log in first');
  return ctx.caller;
}

/**
 * A caller allowed to change a package: not a read-only token, nor a publish-only one (dist-tags,
 * owners, deprecation, unpublish).
 */
export function requireWriter(request: FastifyRequest): Caller {
  return refusePublishOnly(requirePublisher(request));
}

/** A caller allowed to publish new versions: not a read-only token. */
export function requirePublisher(request: FastifyRequest): Caller {
  const caller = requireCaller(request);
  if (caller.readonly) throw new ProtocolError('FORBIDDEN', 'This token is read-only');
  return caller;
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

/** A route parameter that must be a reverse-DNS package name, or 422 VALIDATION_ERROR. */
export function packageNameParam(value: string | undefined): PackageName {
  const check = checkPackageName(value ?? '');
  if (!check.ok) throw new ProtocolError('VALIDATION_ERROR', `Invalid package name '${truncate(value ?? '')}': ${check.rule}`);
  return check.name;
}

export function truncate(value: string, max = 80): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
