import { ProtocolError } from '@pkg/protocol';
import type { Caller } from '../context.js';
import type { TenantId, TokenScope } from '../storage/ports.js';
import type { AuthService, TokenSummary } from './auth-service.js';
import { loginTokenRequired } from './caller-rules.js';

/** Longest expiry a client may ask for, in days (ten years). */
const MAX_EXPIRY_DAYS = 3650;

/** A request for a new token, its fields checked for type (routes/token-body.ts). */
export interface TokenRequest {
  password: string;
  readonly: boolean;
  scope: TokenScope | undefined;
  /** Days until it expires; undefined: the registry's tokenTtl, or never. */
  expiresInDays: number | undefined;
  clientIp: string;
}

/**
 * A user's own tokens, as npm's token commands and `pkg token` manage them: create (the
 * password entered again), list, revoke. Only an unlimited token (one from a login) manages
 * tokens: a limited one, if it leaked, must not be able to mint unlimited ones or end the rest.
 */
export class TokenService {
  readonly #auth: AuthService;
  readonly #now: () => Date;

  constructor(auth: AuthService, now: () => Date) {
    this.#auth = auth;
    this.#now = now;
  }

  async create(tenant: TenantId, caller: Caller, input: TokenRequest): Promise<{ token: string; summary: TokenSummary }> {
    requireUnlimited(caller);
    const days = input.expiresInDays;
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS)) {
      throw new ProtocolError('VALIDATION_ERROR', `'expires' must be a whole number of days from 1 to ${MAX_EXPIRY_DAYS}`);
    }
    // The password again, as npm's registry asks: a token alone does not make more tokens.
    await this.#auth.confirmPassword(tenant, { name: caller.user, password: input.password, clientIp: input.clientIp });
    const expiresAt = days === undefined ? undefined : new Date(this.#now().getTime() + days * 86_400_000);
    return this.#auth.issueLimitedToken(tenant, caller.user, {
      readonly: input.readonly,
      ...(input.scope ? { scope: input.scope } : {}),
      ...(expiresAt ? { expiresAt } : {}),
    });
  }

  /** One page of the caller's tokens, newest first, and how many there are. */
  async list(
    tenant: TenantId,
    caller: Caller,
    page: { from: number; size: number },
  ): Promise<{ tokens: TokenSummary[]; total: number }> {
    requireUnlimited(caller);
    const all = await this.#auth.listTokens(tenant, caller.user);
    return { tokens: all.slice(page.from, page.from + page.size), total: all.length };
  }

  /**
   * Revokes one of the caller's tokens, named by its key (the public id a list shows) or, as
   * npm 11 may send it, by the token itself. False: the caller has no such token.
   */
  async revoke(tenant: TenantId, caller: Caller, keyOrToken: string): Promise<boolean> {
    requireUnlimited(caller);
    if (/^[0-9a-f]{16}$/.test(keyOrToken)) return this.#auth.revokeToken(tenant, caller.user, keyOrToken);
    const owner = await this.#auth.authenticate(tenant, keyOrToken);
    if (owner?.user !== caller.user) return false;
    return this.#auth.logout(tenant, keyOrToken);
  }
}

function requireUnlimited(caller: Caller): void {
  if (caller.readonly || caller.scope !== undefined) {
    throw loginTokenRequired('managing tokens');
  }
}
