import type { Readable } from 'node:stream';
import { JSON_UTF8, type RouteReply } from './route-reply.js';
import { ProtocolError, errorBody } from '@pkg/protocol';
import { UNAVAILABLE_RETRY_AFTER, unavailableDependency, type UnavailableDependency } from './unavailable-dependency.js';
import { challengeOf } from './challenge.js';

/**
 * A response decided but not yet sent: the hot reads compute one, without a promise when they
 * answer from memory, and sendAnswer hands it to the reply. Header names are lowercase.
 */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Bytes to send; undefined for none (304, HEAD). */
  body: Buffer | Readable | undefined;
}

export { JSON_UTF8 };

/** A JSON object as a reply sends it. */
export function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
  return { status, headers: { ...headers, 'content-type': JSON_UTF8 }, body: Buffer.from(JSON.stringify(value)) };
}

/** Sends an answer. */
export function sendAnswer(reply: RouteReply, answer: Answer): RouteReply {
  reply.code(answer.status);
  // An answer's names are lowercase already.
  const headers = reply.headers;
  for (const name in answer.headers) headers[name] = answer.headers[name]!;
  return answer.body === undefined ? reply.send() : reply.send(answer.body);
}

/** Sends an answer now, or when it is ready: no promise for an answer from memory. */
export function sendAnswerOf(reply: RouteReply, answer: Answer | Promise<Answer>): RouteReply | Promise<RouteReply> {
  return answer instanceof Promise ? answer.then((ready) => sendAnswer(reply, ready)) : sendAnswer(reply, answer);
}

/**
 * What a failure looks like on the wire: a protocol error's status, headers and
 * `{error, code, details}`; a backing service out of reach is 503 with Retry-After
 * (`unavailable`: the caller logs it); anything else is 500 with nothing of the error in it
 * (`unexpected`: the caller logs it).
 */
export function errorResponse(err: unknown): {
  status: number;
  headers: Record<string, string>;
  body: ReturnType<typeof errorBody>;
  unexpected: boolean;
  /** A backing service that could not be reached (503): the caller logs it as a warning. */
  unavailable?: UnavailableDependency;
} {
  if (err instanceof ProtocolError) {
    const headers: Record<string, string> = {};
    // The reason in the challenge is what npm prints of a 401 (http/challenge.ts).
    if (err.status === 401) headers['www-authenticate'] = challengeOf(err.details || err.message);
    for (const name in err.headers) headers[name.toLowerCase()] = err.headers[name]!;
    return { status: err.status, headers, body: err.toBody(), unexpected: false };
  }
  const unavailable = unavailableDependency(err);
  if (unavailable) {
    const refusal = new ProtocolError(
      'SERVICE_UNAVAILABLE',
      `The registry's ${unavailable.dependency} is unreachable; retry shortly`,
    );
    return {
      status: refusal.status,
      headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER) },
      body: refusal.toBody(),
      unexpected: false,
      unavailable,
    };
  }
  return {
    status: 500,
    headers: {},
    body: errorBody('INTERNAL_ERROR', 'The server failed to handle the request'),
    unexpected: true,
  };
}

/** A protocol error as an answer (for routes that answer errors without throwing). */
export function errorAnswer(err: ProtocolError): Answer {
  const failure = errorResponse(err);
  return jsonAnswer(failure.status, failure.body, failure.headers);
}
