import type { TokenStore } from './token-store.js';

/**
 * `PKG_TOKEN` overrides storage (for CI): every read answers it, for every host; writes and
 * deletes still reach the store underneath, so `login` and `logout` keep working.
 */
export class EnvTokenOverride implements TokenStore {
  readonly overridden = true;
  readonly #token: string;
  readonly #base: TokenStore;

  constructor(token: string, base: TokenStore) {
    this.#token = token;
    this.#base = base;
  }

  get name() {
    return this.#base.name;
  }

  async get(_host: string): Promise<string | null> {
    return this.#token;
  }

  set(host: string, token: string): Promise<void> {
    return this.#base.set(host, token);
  }

  delete(host: string): Promise<boolean> {
    return this.#base.delete(host);
  }
}
