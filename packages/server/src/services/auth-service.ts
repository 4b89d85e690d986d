import type { Caller } from '../context.js';
import type { ServerDeps } from '../deps.js';
import type { TenantId } from '../storage/ports.js';

/** Accounts and tokens: login, logout, token authentication. */
export class AuthService {
  readonly #deps: ServerDeps;

  constructor(deps: ServerDeps) {
    this.#deps = deps;
  }

  /** The caller behind a bearer token, or null (no token, unknown, expired or revoked). */
  async authenticate(_tenant: TenantId, token: string | undefined): Promise<Caller | null> {
    void this.#deps;
    if (token === undefined) return null;
    return null;
  }
}
