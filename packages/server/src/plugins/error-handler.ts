import { ProtocolError } from '@pkg/protocol';
import { errorResponse } from '../http/answer.js';
import type { RouteReply } from '../http/route-reply.js';
import type { RouteRequest } from '../http/route-request.js';
import { safePath } from '../http/safe-path.js';

/**
 * The API's one place failures become responses: `{error, code, details}`, never a stack trace
 * or an internal message. Anything unexpected is logged (without the request body) and answered
 * 500; a backing service out of reach is 503 with Retry-After.
 */
export function apiErrorHandler(err: Error, request: RouteRequest, reply: RouteReply): RouteReply {
  const response = errorResponse(err);
  if (response.unexpected) request.log.error({ err }, 'unhandled error');
  if (response.unavailable) request.log.warn(response.unavailable, 'answered 503: a backing service is unreachable');
  for (const name in response.headers) reply.header(name, response.headers[name]!);
  return reply.code(response.status).send(response.body);
}

/** A request no route matches. */
export function routeNotFound(request: RouteRequest): never {
  throw new ProtocolError('NOT_FOUND', `No route for ${request.method} ${safePath(request.url)}`);
}
