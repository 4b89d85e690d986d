import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import secureJson from 'secure-json-parse';
import { ProtocolError, payloadTooLarge, requestBodyEmpty, requestBodyNotJson } from '@pkg/protocol';
import { depthExceeds, jsonTooDeep, MAX_JSON_DEPTH } from '../services/json-depth.js';

/**
 * How a body of one media type becomes `request.body`: read whole as text (within the limit)
 * and parsed, or handed over as a stream for the route to read (a publish of any size).
 */
export type BodyParser =
  | { readonly kind: 'text'; readonly bodyLimit?: number; parse(text: string): unknown }
  | { readonly kind: 'stream'; parse(stream: Readable): unknown };

/**
 * JSON, the protocol's one body type: `__proto__` and `constructor.prototype` keys refused
 * (they would reach a prototype), and bodies nested deeper than MAX_JSON_DEPTH refused before any
 * route walks them recursively (the size limit alone still allows hundreds of thousands of levels).
 */
export const JSON_BODY: BodyParser = {
  kind: 'text',
  parse(text) {
    if (text.length === 0) throw requestBodyEmpty();
    let value: unknown;
    try {
      value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      throw requestBodyNotJson();
    }
    if (value !== null && typeof value === 'object' && depthExceeds(value, MAX_JSON_DEPTH)) throw jsonTooDeep();
    return value;
  },
};

/** The parsers of the API: JSON only. A body of any other type is refused with 415. */
export const API_PARSERS: Readonly<Record<string, BodyParser>> = { 'application/json': JSON_BODY };

/** A body of another type than the route takes. */
export function unsupportedMediaType(): ProtocolError {
  return new ProtocolError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
}

/**
 * Reads the body of `request` for a route with `parsers`: undefined when there is none; the
 * parser's value otherwise. Content-Encoding gzip or deflate is undone first, and the limit
 * applies to what that makes, so a zip bomb is cut off at the limit.
 */
export function readBody(
  request: IncomingMessage,
  parsers: Readonly<Record<string, BodyParser>>,
  routeLimit: number | undefined,
  serverLimit: number,
): unknown {
  const headers = request.headers;
  const contentType = headers['content-type'];
  if (contentType === undefined) {
    if (headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0') return undefined;
    throw unsupportedMediaType();
  }
  const semicolon = contentType.indexOf(';');
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  const parser = parsers[mediaType];
  if (parser === undefined) throw unsupportedMediaType();
  const decoded = decodedStream(request);
  if (parser.kind === 'stream') return parser.parse(decoded);
  const limit = routeLimit ?? parser.bodyLimit ?? serverLimit;
  // The declared length counts the bytes on the wire: the decompressed body is measured as it comes.
  const declared = headers['content-length'];
  return readText(decoded, declared === undefined ? undefined : Number(declared), limit).then((text) => parser.parse(text));
}

function decodedStream(request: IncomingMessage): Readable {
  const header = request.headers['content-encoding'];
  if (header === undefined) return request;
  const encoding = header.toLowerCase().trim();
  if (encoding === 'identity' || encoding === '') return request;
  let decoder;
  if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip();
  else if (encoding === 'deflate') decoder = createInflate();
  else throw new ProtocolError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Encoding '${encoding}'`);
  // The compressed length says nothing about the body the route measures.
  delete request.headers['content-length'];
  // What reads the body sees the refusal users should see, not zlib's error.
  const decoded = new PassThrough();
  // A route that answered without reading the body (a refusal) listens no more: a bad body then
  // must not become an uncaught error.
  decoded.on('error', () => undefined);
  decoder.on('error', (err: Error & { code?: unknown }) =>
    decoded.destroy(typeof err.code === 'string' && err.code.startsWith('Z_') ? notDecodable() : err),
  );
  request.on('error', (err) => decoder.destroy(err));
  return request.pipe(decoder).pipe(decoded);
}

/** A body whose bytes are not what its Content-Encoding says. */
function notDecodable(): ProtocolError {
  return new ProtocolError('BAD_REQUEST', 'The request body is not valid gzip or deflate data');
}

function readText(stream: Readable, declared: number | undefined, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (declared !== undefined && !(Number.isSafeInteger(declared) && declared >= 0)) return reject(requestBodyNotJson());
    if (declared !== undefined && declared > limit) {
      // Read and dropped, so the connection can carry the answer and the next request.
      stream.resume();
      return reject(payloadTooLarge('request body', limit));
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = (err: Error | undefined, text?: string) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      if (err) {
        stream.on('error', () => undefined);
        stream.resume();
        reject(err);
      } else resolve(text!);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return stop(payloadTooLarge('request body', limit));
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (declared !== undefined && received !== declared) return stop(requestBodyNotJson());
      stop(undefined, Buffer.concat(chunks, received).toString('utf8'));
    };
    // A body cut short (the client left) or garbled in transit cannot be parsed either.
    const onError = (err: Error) => stop(err instanceof ProtocolError ? err : requestBodyNotJson());
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
