import type { RouteRequest } from '../http/route-request.js';
import type { RouteReply } from '../http/route-reply.js';
import { ProtocolError } from '@pkg/protocol';
import { BROWSER_SESSION_SECONDS } from '../services/browser-sessions.js';
import { readCookie, setCookie } from './cookies.js';
import type { WebServices } from './web-services.js';

export type SignInOutcome = { ok: true; user: string } | { ok: false; status: number; error: string; name: string };

/**
 * Checks a sign-in form's name and password with the registry's own login rules (the same
 * accounts, the same sign-up policy as `npm login`). Failures come back as a message for the
 * form, not as an exception: the page is shown again with the name kept.
 */
export async function checkSignIn(request: RouteRequest, web: WebServices, form: Record<string, string>): Promise<SignInOutcome> {
  const name = (form.name ?? '').trim();
  const password = form.password ?? '';
  const email = (form.email ?? '').trim();
  if (name.length === 0 || password.length === 0) {
    return { ok: false, status: 400, error: 'Enter your user name and password.', name };
  }
  if (name.length > 128 || password.length > 1024 || email.length > 254) {
    return { ok: false, status: 400, error: 'The user name, password or e-mail is too long.', name: name.slice(0, 128) };
  }
  const tenant = request.ctx.tenant;
  try {
    const { signup } = request.ctx.settings;
    // On a web form an account is only created on purpose (an e-mail given), never by a typo.
    const settings = { signup: signup && email !== '' };
    const { user } = await web.registry.auth.checkCredentials(
      tenant,
      { name, password, email: email || undefined, clientIp: request.ip, otp: (form.otp ?? '').trim() || undefined },
      settings,
    );
    return { ok: true, user: user.name };
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err;
    if (err.code === 'UNAUTHORIZED' && err.headers['www-authenticate'] === 'OTP') {
      const error = form.otp
        ? 'That one-time password is not the current one: try the next code.'
        : 'Enter the one-time password from your authenticator app.';
      return { ok: false, status: 401, error, name };
    }
    if (err.code === 'UNAUTHORIZED') return { ok: false, status: 401, error: 'Wrong user name or password.', name };
    if (err.code === 'VALIDATION_ERROR') return { ok: false, status: 422, error: sentence(err.details), name };
    throw err;
  }
}

/** Starts a browser session for `user` and sets its cookie. */
export async function startBrowserSession(
  request: RouteRequest,
  reply: RouteReply,
  web: WebServices,
  user: string,
): Promise<void> {
  // A new secret at every sign-in (no session fixation); the one it replaces ends now.
  await web.registry.browserSessions.end(request.ctx.tenant, readCookie(request, 'session'));
  const secret = await web.registry.browserSessions.start(request.ctx.tenant, user);
  setCookie(request, reply, 'session', secret, { sameSite: 'Lax', maxAge: BROWSER_SESSION_SECONDS });
}

/** A local path to go to after signing in; anything else (other hosts, `//evil`) becomes `fallback`. */
export function localPath(value: string | undefined, fallback: string): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback;
  return /^\/(?![/\\])[^\s\\]*$/.test(value) ? value : fallback;
}

/** A service's reason as a sentence for a page: capitalised, with a full stop. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}${/[.!?]$/.test(trimmed) ? '' : '.'}`;
}
