import { timingSafeEqual } from 'node:crypto';
import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';
import { ProtocolError } from '@pkg/protocol';
import { newToken } from '../services/tokens.js';
import { readCookie, setCookie } from './cookies.js';

/** Name of the hidden form field that carries the CSRF token. */
export const CSRF_FIELD = 'csrf';

/**
 * CSRF protection of every form that changes something (double-submit cookie): the page embeds
 * the value of a random, HttpOnly, SameSite=Strict cookie in a hidden field, and the POST must
 * carry both, equal. Another site can neither read the cookie nor make the browser send it
 * with a cross-site POST. The Origin header, when present, must also be this host.
 */
export function csrfTokenFor(request: RouteRequest, reply: RouteReply): string {
  const existing = readCookie(request, 'csrf');
  if (existing) return existing;
  const token = newToken();
  setCookie(request, reply, 'csrf', token, { sameSite: 'Strict' });
  return token;
}

export function checkCsrf(request: RouteRequest, submitted: unknown): void {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && !sameHost(origin, `${request.protocol}://${request.host}`)) {
    throw forbidden();
  }
  const cookie = readCookie(request, 'csrf');
  if (cookie === undefined || typeof submitted !== 'string') throw forbidden();
  const a = Buffer.from(cookie);
  const b = Buffer.from(submitted);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw forbidden();
}

function sameHost(origin: string, own: string): boolean {
  try {
    // Through URL so that default ports (`:443`) compare equal to none.
    return new URL(origin).host === new URL(own).host;
  } catch {
    return false;
  }
}

function forbidden(): ProtocolError {
  return new ProtocolError('FORBIDDEN', 'The form is outdated or was sent from another site: reload the page and try again');
}
