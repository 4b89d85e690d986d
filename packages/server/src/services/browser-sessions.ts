import type { AccountStores, TenantId } from '../storage/ports.js';
import { hashToken, newToken } from './tokens.js';

/** How long a browser stays signed in to the web interface. */
export const BROWSER_SESSION_SECONDS = 12 * 60 * 60;

const KIND = 'web';

/**
 * Sign-in sessions of the web interface. The browser holds a random secret in a cookie; the
 * store keeps its hash, so sessions work across server processes and a database leak gives
 * nobody a session. A session is only a key to the web pages: it never authenticates API calls.
 */
export class BrowserSessions {
  readonly #registry: AccountStores;
  readonly #now: () => Date;

  constructor(registry: AccountStores, now: () => Date) {
    this.#registry = registry;
    this.#now = now;
  }

  /** Starts a session for a user whose password was just checked; returns the cookie secret. */
  async start(tenant: TenantId, user: string): Promise<string> {
    const now = this.#now();
    await this.#registry.sessions.deleteExpired(now.toISOString());
    const secret = newToken();
    await this.#registry.sessions.create(tenant, {
      hash: hashToken(secret),
      kind: KIND,
      user,
      data: {},
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + BROWSER_SESSION_SECONDS * 1000).toISOString(),
    });
    return secret;
  }

  /** The signed-in user behind a cookie secret, or undefined (unknown, expired, user disabled). */
  async userOf(tenant: TenantId, secret: string | undefined): Promise<string | undefined> {
    if (secret === undefined) return undefined;
    const session = await this.#registry.sessions.get(tenant, hashToken(secret), this.#now().toISOString());
    if (!session || session.kind !== KIND || session.user === null) return undefined;
    const user = await this.#registry.users.get(tenant, session.user);
    return user && !user.disabled ? user.name : undefined;
  }

  async end(tenant: TenantId, secret: string | undefined): Promise<void> {
    if (secret !== undefined) await this.#registry.sessions.delete(tenant, hashToken(secret));
  }
}
