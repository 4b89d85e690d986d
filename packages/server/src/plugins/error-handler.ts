import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError, errorBody, payloadTooLarge, requestBodyEmpty, requestBodyNotJson, type ErrorCode } from '@pkg/protocol';
import { errorResponse } from '../http/answer.js';
import { safePath } from '../http/safe-path.js';
import { logRequestLine, type RequestLog } from './logging.js';

/**
 * The one place failures become responses: `{error, code, details}`, never a stack trace or an
 * internal message. Anything unexpected is logged (without the request body) and answered 500.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ProtocolError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const mapped =
      err instanceof ProtocolError
        ? undefined
        : mapFrameworkError(err as FastifyError, request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit);
    if (mapped) {
      return reply.code(mapped.status).send(errorBody(mapped.code, mapped.details));
    }
    const response = errorResponse(err);
    if (response.unexpected) request.log.error({ err }, 'unhandled error');
    if (response.unavailable) request.log.warn(response.unavailable, 'answered 503: a backing service is unreachable');
    for (const name in response.headers) reply.header(name, response.headers[name]);
    return reply.code(response.status).send(response.body);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody('NOT_FOUND', `No route for ${request.method} ${safePath(request.url)}`));
  });
}

function mapFrameworkError(
  err: FastifyError,
  bodyLimit: number | undefined,
): { status: number; code: ErrorCode; details: string } | undefined {
  const as = ({ status, code, details }: ProtocolError) => ({ status, code, details });
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return as(payloadTooLarge('request body', bodyLimit ?? 0));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return notJsonMediaType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return as(requestBodyEmpty());
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return as(requestBodyNotJson());
    case 'FST_ERR_VALIDATION':
      return { status: 400, code: 'BAD_REQUEST', details: err.message };
    default:
      break;
  }
  // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR): a Content-Encoding: gzip body that does not inflate.
  if (typeof err.code === 'string' && err.code.startsWith('Z_')) {
    return { status: 400, code: 'BAD_REQUEST', details: 'The request body is not valid gzip or deflate data' };
  }
  if (err instanceof SyntaxError || err.statusCode === 400) return as(requestBodyNotJson());
  if (err.statusCode === 413) return as(payloadTooLarge('request body', bodyLimit ?? 0));
  if (err.statusCode === 415) return notJsonMediaType();
  return undefined;
}

/** A body of another type than JSON, the protocol's only one (fastify's 415, however it says it). */
function notJsonMediaType(): { status: number; code: ErrorCode; details: string } {
  return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', details: 'Send the body as application/json' };
}

/**
 * Fastify's `frameworkErrors`: URLs it rejects before routing (bad percent-encoding, a path
 * segment over maxParamLength). Its default answer echoes the URL, which may hold a token.
 */
export function answerFrameworkError(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  requestLog: RequestLog,
): void {
  const details =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment is too long' : 'The URL is not valid (bad percent-encoding)';
  // No route, so no onResponse hook: write the request's log line here.
  reply.raw.once('finish', () => logRequestLine(requestLog, request, reply));
  void reply.code(400).send(errorBody('BAD_REQUEST', details));
}
