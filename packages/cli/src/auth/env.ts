import type { TokenStore } from './token-store.js';

/**
 * `PKG_TOKEN` overrides storage (for CI) for the registry in effect only: reads for that host
 * answer it, other hosts (the other registries a project names) keep their own tokens. Writes
 * and deletes still reach the store underneath, so `login` and `logout` keep working.
 */
export class EnvTokenOverride implements TokenStore {
  readonly overridden = true;
  readonly #token: string;
  readonly #host: string;
  readonly #base: TokenStore;

  constructor(token: string, host: string, base: TokenStore) {
    this.#token = token;
    this.#host = host;
    this.#base = base;
  }

  get name() {
    return this.#base.name;
  }

  /** The store underneath, whose token `login` replaces (never PKG_TOKEN's). */
  get base(): TokenStore {
    return this.#base;
  }

  async get(host: string): Promise<string | null> {
    return host === this.#host ? this.#token : this.#base.get(host);
  }

  set(host: string, token: string): Promise<void> {
    return this.#base.set(host, token);
  }

  delete(host: string): Promise<boolean> {
    return this.#base.delete(host);
  }
}
