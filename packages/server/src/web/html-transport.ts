import { createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Smaller pages are sent as they are: compressing them saves less than its headers cost. */
const MIN_COMPRESS_BYTES = 1024;

/** One year: what browsers need to remember that this host is HTTPS only. */
export const HSTS = 'max-age=31536000';

/**
 * How a page travels: an ETag (the page's digest; weak, since the compressed forms are the same
 * page) answered with 304 when the browser already has it, and the body compressed with brotli
 * or gzip as the browser accepts. Pages are rendered per request (they hold the viewer and the
 * form token), so the tag is computed from the bytes, not kept.
 */
export async function sendHtml(request: RouteRequest, reply: RouteReply, payload: string): Promise<string | Buffer> {
  addVary(reply, 'Accept-Encoding');
  const body = Buffer.from(payload);
  // Error pages are compressed too, but never revalidated (they are no-store).
  if (reply.statusCode === 200) {
    const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    reply.header('etag', etag);
    if (matches(request.headers['if-none-match'], etag)) {
      reply.code(304);
      reply.removeHeader('content-type');
      return '';
    }
  }
  if (body.length < MIN_COMPRESS_BYTES) return payload;
  const accepted = String(request.headers['accept-encoding'] ?? '');
  if (accepts(accepted, 'br')) {
    reply.header('content-encoding', 'br');
    // Quality 5: most of brotli's gain for a small part of its top setting's time, per request.
    return brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
  }
  if (accepts(accepted, 'gzip')) {
    reply.header('content-encoding', 'gzip');
    return gzipAsync(body, { level: 6 });
  }
  return payload;
}

/** Strict-Transport-Security, only when this server itself speaks TLS (never behind a proxy's HTTPS it cannot vouch for). */
export function setHsts(request: RouteRequest, reply: RouteReply): void {
  if ((request.raw.socket as TLSSocket | undefined)?.encrypted === true) reply.header('strict-transport-security', HSTS);
}

/** Adds to Vary (the home page already varies on Accept). */
function addVary(reply: RouteReply, field: string): void {
  const current = reply.getHeader('vary');
  const fields = String(current ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (!fields.some((f) => f.toLowerCase() === field.toLowerCase())) fields.push(field);
  reply.header('vary', fields.join(', '));
}

function matches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = (Array.isArray(header) ? header.join(',') : header).split(',').map((t) => t.trim());
  const bare = etag.slice(2);
  return tags.some((t) => t === '*' || t === etag || t === bare || t === `W/${bare}`);
}

/** Whether Accept-Encoding names `coding` without `q=0`. */
function accepts(header: string, coding: string): boolean {
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (name?.trim() !== coding) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}
