/**
 * Where login keeps tokens: one secret per registry host (see registryHostKey). Adapters:
 * the OS keychain, an AES-256-GCM encrypted file, and the PKG_TOKEN environment override;
 * select.ts picks one.
 */
export interface TokenStore {
  /** How the login output names it: `Token stored securely in <name>.` */
  readonly name: 'keychain' | 'encrypted file';
  /** True when PKG_TOKEN overrides what is stored. */
  readonly overridden: boolean;
  get(host: string): Promise<string | null>;
  set(host: string, token: string): Promise<void>;
  /** Forgets the host's token; true when there was one. */
  delete(host: string): Promise<boolean>;
}

/** A store could not do its job: unreadable, tampered with, keychain refused. */
export class TokenStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TokenStoreError';
  }
}
