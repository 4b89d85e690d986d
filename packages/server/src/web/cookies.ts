import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';

/**
 * The web interface's two cookies: the sign-in session and the CSRF token. Both are HttpOnly
 * and host-only (no Domain), so a tenant host never sees another host's cookies. Over HTTPS
 * they carry the `__Host-` prefix, which browsers only accept with Secure and Path=/.
 */
export type CookieKind = 'session' | 'csrf';

const BASE_NAMES: Record<CookieKind, string> = { session: 'pkg_session', csrf: 'pkg_csrf' };

export function isSecure(request: RouteRequest): boolean {
  return request.ctx.baseUrl.startsWith('https:');
}

export function cookieName(kind: CookieKind, secure: boolean): string {
  return secure ? `__Host-${BASE_NAMES[kind]}` : BASE_NAMES[kind];
}

export function readCookie(request: RouteRequest, kind: CookieKind): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string' || header.length > 8192) return undefined;
  const wanted = cookieName(kind, isSecure(request));
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== wanted) continue;
    const value = part.slice(eq + 1).trim();
    // Our values are base64url; anything else was not set by us.
    return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : undefined;
  }
  return undefined;
}

export interface CookieOptions {
  /** Lifetime in seconds; 0 deletes the cookie. Unset: a browser-session cookie. */
  maxAge?: number;
  sameSite: 'Strict' | 'Lax';
}

export function setCookie(
  request: RouteRequest,
  reply: RouteReply,
  kind: CookieKind,
  value: string,
  options: CookieOptions,
): void {
  const secure = isSecure(request);
  const parts = [`${cookieName(kind, secure)}=${value}`, 'Path=/', 'HttpOnly', `SameSite=${options.sameSite}`];
  if (secure) parts.push('Secure');
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  reply.header('set-cookie', [...list.filter((c) => !c.startsWith(`${cookieName(kind, secure)}=`)), parts.join('; ')]);
}

export function clearCookie(request: RouteRequest, reply: RouteReply, kind: CookieKind): void {
  setCookie(request, reply, kind, '', { maxAge: 0, sameSite: 'Lax' });
}
