/**
 * The one error catalogue of the registry protocol. The server answers every failure with
 * `{error, code, details}` built from this table; the client maps the same codes to messages.
 * docs/errors.md is checked against this table by a test.
 */
export const ERROR_CATALOGUE = {
  BAD_REQUEST: { status: 400, error: 'Bad request' },
  UNAUTHORIZED: { status: 401, error: 'Authentication required' },
  FORBIDDEN: { status: 403, error: 'Forbidden' },
  QUOTA_EXCEEDED: { status: 403, error: 'Quota exceeded' },
  NOT_FOUND: { status: 404, error: 'Package not found' },
  METHOD_NOT_ALLOWED: { status: 405, error: 'Method not allowed' },
  CONFLICT: { status: 409, error: 'Conflict' },
  PAYLOAD_TOO_LARGE: { status: 413, error: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, error: 'Unsupported media type' },
  RANGE_NOT_SATISFIABLE: { status: 416, error: 'Range not satisfiable' },
  VALIDATION_ERROR: { status: 422, error: 'Validation failed' },
  RATE_LIMIT_EXCEEDED: { status: 429, error: 'Rate limit exceeded' },
  INTERNAL_ERROR: { status: 500, error: 'Internal server error' },
  BAD_GATEWAY: { status: 502, error: 'Bad gateway' },
  SERVICE_UNAVAILABLE: { status: 503, error: 'Service unavailable' },
  UPSTREAM_UNAVAILABLE: { status: 503, error: 'Upstream registry unavailable' },
} as const satisfies Record<string, { status: number; error: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The wire shape of every error body. */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details: string;
}

/**
 * A failure that the protocol knows how to report. Thrown where it happens (services,
 * validators), translated to a response once, by the server's error handler.
 */
export class ProtocolError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: string;
  /** Extra response headers, e.g. `Retry-After` on 429. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, details: string, headers: Record<string, string> = {}) {
    // A protocol error is an expected answer (404, 401, 429…), never logged with its stack:
    // capturing one costs more than the rest of a 404 response.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`${ERROR_CATALOGUE[code].error}: ${details}`);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ProtocolError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.details = details;
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.details);
  }
}

/**
 * The wire body. npm shows only `error` (`npm error 422 Unprocessable Entity - PUT … - <error>`),
 * so `error` carries the specific reason, the details; the catalogue's short text stands in only
 * when there are none. `code` is what programs compare.
 */
export function errorBody(code: ErrorCode, details: string): ErrorBody {
  return { error: details || ERROR_CATALOGUE[code].error, code, details };
}

/** What a 413 names as too large. */
export type TooLarge = 'request body' | 'tarball' | 'package document without its tarball';

/**
 * Every 413 of the registry, in one wording: what was too large and the limit in bytes, so that
 * npm's one line (which shows `error`) tells the publisher what to change.
 */
export function payloadTooLarge(what: TooLarge, limitBytes: number): ProtocolError {
  return new ProtocolError('PAYLOAD_TOO_LARGE', `The ${what} is larger than the limit of ${limitBytes} bytes`);
}

/*
 * Conditions that more than one place reports, each in one wording. A name or value the
 * client sent is cut to 80 characters (with an ellipsis) so that an answer never echoes a
 * whole oversized input.
 */

function short(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}

/** 400: a request that must carry a body has none. */
export function requestBodyEmpty(): ProtocolError {
  return new ProtocolError('BAD_REQUEST', 'The request body is empty');
}

/** 400: a JSON body that does not parse. */
export function requestBodyNotJson(): ProtocolError {
  return new ProtocolError('BAD_REQUEST', 'The request body is not valid JSON');
}

/** 404: no such package (or one unpublished). */
export function packageNotFound(name: string): ProtocolError {
  return new ProtocolError('NOT_FOUND', `Package '${short(name)}' not found`);
}

/** 404: the package has no such version (nor a tag or range naming one). */
export function versionNotFound(name: string, version: string): ProtocolError {
  return new ProtocolError('NOT_FOUND', `Version '${short(version)}' of '${short(name)}' not found`);
}

/** 404: the package has no such file (tarball or provenance bundle). */
export function fileNotFound(name: string, file: string): ProtocolError {
  return new ProtocolError('NOT_FOUND', `File '${short(file)}' of '${short(name)}' not found`);
}

/** 404: no such account (or a disabled one) in the registry named, this one by default. */
export function userNotFound(name: string, registry = 'this registry'): ProtocolError {
  return new ProtocolError('NOT_FOUND', `There is no user '${short(name)}' in ${registry}`);
}

export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.error === 'string' && typeof v.code === 'string' && typeof v.details === 'string';
}
