import { ProtocolError } from '@pkg/protocol';
import type { AuthService } from './auth-service.js';
import { hashToken, newToken } from './tokens.js';
import type { AccountStores, TenantId } from '../storage/ports.js';

/** How long an `npm login` waits for its user to sign in in the browser. */
export const NPM_LOGIN_SECONDS = 5 * 60;
/** Seconds npm waits between two polls of the done URL (`Retry-After`). */
export const NPM_LOGIN_POLL_SECONDS = 2;

/** Hash of the done secret, which only npm knows; npm polls it and collects the token once. */
const DONE_KIND = 'npm-login';
/** Hash of the login secret, which is in the URL npm prints for its user's browser. */
const PAGE_KIND = 'npm-login-page';

export interface NpmLoginRequest {
  /** The User-Agent npm sent, shown on the sign-in page so the user can recognise it. */
  client: string;
  ip: string;
  /** `npm adduser` asks for an account to be created (`{create: true}`). */
  create: boolean;
}

/** What the sign-in page shows about a pending `npm login`. */
export interface PendingNpmLogin extends NpmLoginRequest {
  createdAt: string;
  expiresAt: string;
}

export type NpmLoginPoll = { state: 'pending'; retryAfter: number } | { state: 'done'; token: string };

/**
 * npm's web login (`npm login` without `--auth-type=legacy`, npm 9+), as a state machine kept in
 * the metadata store so that any server process can serve any step:
 *
 *   start (POST /-/v1/login) → pending ──approve (sign-in page)──▶ approved ──collect (done URL)──▶ gone
 *   pending or approved ──after NPM_LOGIN_SECONDS──▶ gone
 *
 * Two secrets: the login URL's (shown in the terminal, opened in the browser) and the done URL's
 * (kept by npm). Knowing the login URL is not enough to collect the token. The token is issued
 * only when npm collects it, so no token is ever stored in clear; collecting deletes the session,
 * so it is single use.
 */
export class NpmWebLogin {
  readonly #registry: AccountStores;
  readonly #auth: AuthService;
  readonly #now: () => Date;

  constructor(registry: AccountStores, auth: AuthService, now: () => Date) {
    this.#registry = registry;
    this.#auth = auth;
    this.#now = now;
  }

  async start(tenant: TenantId, baseUrl: string, request: NpmLoginRequest): Promise<{ loginUrl: string; doneUrl: string }> {
    const now = this.#now();
    await this.#registry.sessions.deleteExpired(now.toISOString());
    const loginSecret = newToken();
    const doneSecret = newToken();
    const times = {
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + NPM_LOGIN_SECONDS * 1000).toISOString(),
    };
    await this.#registry.sessions.create(tenant, {
      hash: hashToken(doneSecret),
      kind: DONE_KIND,
      user: null,
      data: {},
      ...times,
    });
    await this.#registry.sessions.create(tenant, {
      hash: hashToken(loginSecret),
      kind: PAGE_KIND,
      user: null,
      data: { done: hashToken(doneSecret), client: request.client, ip: request.ip, create: request.create },
      ...times,
    });
    return { loginUrl: `${baseUrl}/-/web/login/${loginSecret}`, doneUrl: `${baseUrl}/-/v1/login/done/${doneSecret}` };
  }

  /** The pending login behind a login URL's secret, or undefined (unknown, expired, already used). */
  async pending(tenant: TenantId, loginSecret: string): Promise<PendingNpmLogin | undefined> {
    const page = await this.#page(tenant, loginSecret);
    if (!page) return undefined;
    return {
      client: typeof page.data.client === 'string' ? page.data.client : '',
      ip: typeof page.data.ip === 'string' ? page.data.ip : '',
      create: page.data.create === true,
      createdAt: page.createdAt,
      expiresAt: page.expiresAt,
    };
  }

  /** Signs the pending login in as `user` (whose password was just checked). False when it is gone. */
  async approve(tenant: TenantId, loginSecret: string, user: string): Promise<boolean> {
    const page = await this.#page(tenant, loginSecret);
    if (!page || typeof page.data.done !== 'string') return false;
    // The login URL works once: whoever deletes the page record is the one who approves.
    if (!(await this.#registry.sessions.delete(tenant, page.hash))) return false;
    return this.#registry.sessions.claim(tenant, page.data.done, user, this.#now().toISOString());
  }

  /** npm's poll of the done URL: pending, or the token (exactly once). */
  async collect(tenant: TenantId, doneSecret: string): Promise<NpmLoginPoll> {
    const hash = hashToken(doneSecret);
    const session = await this.#registry.sessions.get(tenant, hash, this.#now().toISOString());
    if (!session || session.kind !== DONE_KIND) throw loginSessionNotFound();
    if (session.user === null) return { state: 'pending', retryAfter: NPM_LOGIN_POLL_SECONDS };
    if (!(await this.#registry.sessions.delete(tenant, hash))) throw loginSessionNotFound();
    const user = await this.#registry.users.get(tenant, session.user);
    if (!user || user.disabled) throw loginSessionNotFound();
    return { state: 'done', token: await this.#auth.issueToken(tenant, user.name) };
  }

  async #page(tenant: TenantId, loginSecret: string) {
    if (!isSecret(loginSecret)) return undefined;
    const page = await this.#registry.sessions.get(tenant, hashToken(loginSecret), this.#now().toISOString());
    return page && page.kind === PAGE_KIND ? page : undefined;
  }
}

/** Secrets are 43 base64url characters; anything else is not worth a database lookup. */
export function isSecret(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** 404: a web login's secret that names no waiting session. */
export function loginSessionNotFound(): ProtocolError {
  return new ProtocolError(
    'NOT_FOUND',
    'This login session does not exist, has expired or was already used: run npm login again',
  );
}
