import type { IncomingHttpHeaders } from 'node:http';
import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';
import { sendAnswer, type Answer } from '../http/answer.js';
import { MIN_COMPRESS_SIZE, type ContentCoding, type Representation } from '../services/representation.js';
import { negotiateCoding } from './negotiation.js';

export interface SendOptions {
  cacheControl: string;
  /** Request headers the response depends on besides Accept-Encoding (a constant array). */
  vary?: readonly string[];
}

const varyHeaders = new WeakMap<readonly string[], string>();

function varyHeaderOf(vary: readonly string[] | undefined): string {
  if (vary === undefined) return 'Accept-Encoding';
  let header = varyHeaders.get(vary);
  if (header === undefined) varyHeaders.set(vary, (header = [...vary, 'Accept-Encoding'].join(', ')));
  return header;
}

/** Sends a pre-serialized body (see representationAnswer). */
export async function sendRepresentation(
  request: RouteRequest,
  reply: RouteReply,
  representation: Representation,
  options: SendOptions,
): Promise<RouteReply> {
  return sendAnswer(reply, await representationAnswer(request.headers, representation, options));
}

/**
 * The answer for a pre-serialized body: compressed when the client accepts it (each coding
 * computed once per representation), with a strong ETag and Last-Modified, or 304 when the
 * client's copy is current (If-None-Match first, If-Modified-Since only without it). No promise
 * unless a compressed form is still being made.
 */
export function representationAnswer(
  requestHeaders: IncomingHttpHeaders,
  representation: Representation,
  options: SendOptions,
): Answer | Promise<Answer> {
  const coding = representation.size >= MIN_COMPRESS_SIZE ? negotiateCoding(requestHeaders['accept-encoding']) : undefined;
  const headers: Record<string, string> = {
    'cache-control': options.cacheControl,
    vary: varyHeaderOf(options.vary),
    etag: representation.etagFor(coding),
  };
  const lastModified = representation.lastModifiedHeader;
  if (lastModified !== undefined) headers['last-modified'] = lastModified;

  if (isNotModified(requestHeaders, representation)) return { status: 304, headers, body: undefined };

  headers['content-type'] = representation.contentType;
  if (coding === undefined) return { status: 200, headers, body: representation.body };
  const ready = representation.encodedNow(coding);
  if (ready !== undefined) return encodedAnswer(headers, coding, ready);
  return representation.encode(coding).then((encoded) => encodedAnswer(headers, coding, encoded));
}

function encodedAnswer(headers: Record<string, string>, coding: ContentCoding, body: Buffer): Answer {
  headers['content-encoding'] = coding;
  return { status: 200, headers, body };
}

export function isNotModified(
  requestHeaders: IncomingHttpHeaders,
  representation: Pick<Representation, 'etag' | 'lastModified'>,
): boolean {
  const ifNoneMatch = requestHeaders['if-none-match'];
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, representation.etag);
  const ifModifiedSince = requestHeaders['if-modified-since'];
  if (ifModifiedSince !== undefined && representation.lastModified !== undefined) {
    const since = Date.parse(ifModifiedSince);
    // HTTP dates have whole seconds.
    return Number.isFinite(since) && Math.floor(representation.lastModified / 1000) * 1000 <= since;
  }
  return false;
}

/**
 * If-None-Match uses weak comparison; a tag we sent for a compressed form (`"x-br"`) names the
 * same content as the identity tag `"x"`.
 */
export function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const base = etag.replace(/^W\//, '');
  for (const raw of header.split(',')) {
    const tag = raw.trim().replace(/^W\//, '');
    if (tag === base || tag.replace(/-(br|gzip)"$/, '"') === base) return true;
  }
  return false;
}
