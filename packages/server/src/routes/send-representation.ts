import type { FastifyReply, FastifyRequest } from 'fastify';
import { MIN_COMPRESS_SIZE, type Representation } from '../services/representation.js';
import { negotiateCoding } from './negotiation.js';

export interface SendOptions {
  cacheControl: string;
  /** Request headers the response depends on besides Accept-Encoding. */
  vary?: string[];
}

/**
 * Sends a pre-serialized body: compressed when the client accepts it (each coding computed once
 * per representation), with a strong ETag and Last-Modified, or 304 when the client's copy is
 * current (If-None-Match first, If-Modified-Since only without it).
 */
export async function sendRepresentation(
  request: FastifyRequest,
  reply: FastifyReply,
  representation: Representation,
  options: SendOptions,
): Promise<FastifyReply> {
  const coding =
    representation.body.length >= MIN_COMPRESS_SIZE ? negotiateCoding(request.headers['accept-encoding']) : undefined;
  reply.header('Cache-Control', options.cacheControl);
  reply.header('Vary', [...(options.vary ?? []), 'Accept-Encoding'].join(', '));
  reply.header('ETag', representation.etagFor(coding));
  if (representation.lastModified) reply.header('Last-Modified', representation.lastModified.toUTCString());

  if (isNotModified(request, representation)) return reply.code(304).send();

  reply.header('Content-Type', representation.contentType);
  if (coding === undefined) return reply.send(representation.body);
  const encoded = await representation.encode(coding);
  reply.header('Content-Encoding', coding);
  return reply.send(encoded);
}

export function isNotModified(request: FastifyRequest, representation: Pick<Representation, 'etag' | 'lastModified'>): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, representation.etag);
  const ifModifiedSince = request.headers['if-modified-since'];
  if (ifModifiedSince !== undefined && representation.lastModified) {
    const since = Date.parse(ifModifiedSince);
    // HTTP dates have whole seconds.
    return Number.isFinite(since) && Math.floor(representation.lastModified.getTime() / 1000) * 1000 <= since;
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
