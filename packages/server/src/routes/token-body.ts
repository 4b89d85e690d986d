import { ProtocolError } from '@pkg/protocol';
import { isObject } from '../services/json-shapes.js';
import { parseTokenScope } from '../services/token-scope.js';
import type { TokenRequest } from '../services/token-service.js';

/**
 * The body of `POST /-/npm/v1/tokens` as npm 10 (`{password, readonly, cidr_whitelist}`), npm 11
 * (`{name, password, expires, packages, packages_and_scopes_permission, cidr_whitelist,
 * bypass_2fa, …}`) and `pkg token create` send it, checked field by field. npm's scopes and
 * organisations have no counterpart here (names are reverse-DNS): they are refused, not ignored,
 * so that nobody gets a wider token than they asked for.
 */
export function parseTokenBody(body: unknown, clientIp: string): TokenRequest {
  if (!isObject(body)) throw new ProtocolError('BAD_REQUEST', 'The body must be a JSON object');
  const b = body;
  if (typeof b.password !== 'string' || b.password.length === 0 || b.password.length > 1024) {
    throw new ProtocolError('BAD_REQUEST', "'password' must be your password (1-1024 characters): a new token needs it");
  }
  for (const field of ['scopes', 'orgs'] as const) {
    if (Array.isArray(b[field]) && b[field].length > 0) {
      throw new ProtocolError(
        'VALIDATION_ERROR',
        `This registry has no npm ${field}: limit a token to packages or namespaces instead (--packages com.studio.*)`,
      );
    }
  }
  const permission = b.packages_and_scopes_permission;
  if (permission !== undefined && permission !== null && permission !== 'read-only' && permission !== 'read-write') {
    throw new ProtocolError('VALIDATION_ERROR', "'packages_and_scopes_permission' must be 'read-only' or 'read-write'");
  }
  if (b.readonly !== undefined && b.readonly !== null && typeof b.readonly !== 'boolean') {
    throw new ProtocolError('BAD_REQUEST', "'readonly' must be true or false");
  }
  const expires = b.expires;
  if (expires !== undefined && expires !== null && typeof expires !== 'number') {
    throw new ProtocolError('BAD_REQUEST', "'expires' must be a number of days");
  }
  const name = b.name ?? b.description;
  const scope = parseTokenScope({
    name,
    cidrWhitelist: b.cidr_whitelist,
    packages: b.packages,
    publishOnly: b.publish_only,
    automation: b.automation ?? b.bypass_2fa,
  });
  const readonly = b.readonly === true || permission === 'read-only';
  if (readonly && scope?.publishOnly) {
    throw new ProtocolError('VALIDATION_ERROR', 'A token cannot be both read-only and publish-only');
  }
  return { password: b.password, readonly, scope, expiresInDays: expires ?? undefined, clientIp };
}
