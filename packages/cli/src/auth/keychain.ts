import type { KeyringBinding } from '../deps.js';
import { TokenStoreError, type TokenStore } from './token-store.js';

const SERVICE = 'pkg-registry';
const PROBE_ACCOUNT = 'pkg-keychain-probe';

/**
 * Tokens in the OS keychain (macOS Keychain, Windows Credential Manager, the Secret Service on
 * Linux), one entry per registry host under the service `pkg-registry`. On Linux the entry is
 * pinned to the Secret Service: the kernel keyring the binding would otherwise fall back to
 * forgets everything at logout or reboot, which is not storage.
 */
export class KeychainTokenStore implements TokenStore {
  readonly name = 'keychain';
  readonly overridden = false;
  readonly #binding: KeyringBinding;
  readonly #platform: NodeJS.Platform;

  constructor(binding: KeyringBinding, platform: NodeJS.Platform) {
    this.#binding = binding;
    this.#platform = platform;
  }

  /** True when a keychain answers: reading an entry that need not exist succeeds. */
  async available(): Promise<boolean> {
    try {
      await this.#entry(PROBE_ACCOUNT).getPassword();
      return true;
    } catch {
      return false;
    }
  }

  async get(host: string): Promise<string | null> {
    try {
      return (await this.#entry(host).getPassword()) ?? null;
    } catch (err) {
      throw new TokenStoreError(`the keychain refused to read the token for ${host}: ${(err as Error).message}`, { cause: err });
    }
  }

  async set(host: string, token: string): Promise<void> {
    try {
      await this.#entry(host).setPassword(token);
    } catch (err) {
      throw new TokenStoreError(`the keychain refused to store the token for ${host}: ${(err as Error).message}`, { cause: err });
    }
  }

  async delete(host: string): Promise<boolean> {
    try {
      return await this.#entry(host).deleteCredential();
    } catch (err) {
      throw new TokenStoreError(`the keychain refused to delete the token for ${host}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  #entry(account: string) {
    const options = this.#platform === 'linux' ? { linux: { store: 'secret-service' as const } } : undefined;
    return new this.#binding.AsyncEntry(SERVICE, account, options);
  }
}
