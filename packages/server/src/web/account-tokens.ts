import type { MetadataStore, TenantId } from '../storage/ports.js';
import type { TokenRow } from './pages/account-page.js';

/** Length of the public id of a token: the start of its sha256, which reveals nothing of it. */
const ID_LENGTH = 16;

/** The signed-in user's own tokens: list them (never the token itself), revoke one. */
export class AccountTokens {
  readonly #metadata: MetadataStore;

  constructor(metadata: MetadataStore) {
    this.#metadata = metadata;
  }

  async list(tenant: TenantId, user: string): Promise<TokenRow[]> {
    const tokens = await this.#metadata.listUserTokens(tenant, user);
    return tokens.map((t) => ({
      id: t.hash.slice(0, ID_LENGTH),
      prefix: t.prefix,
      createdAt: t.createdAt,
      expiresAt: t.expiresAt,
      readonly: t.readonly,
    }));
  }

  /** Revokes the user's token with that id; false when the user has no such token. */
  async revoke(tenant: TenantId, user: string, id: string): Promise<boolean> {
    if (!/^[0-9a-f]{16}$/.test(id)) return false;
    const matches = (await this.#metadata.listUserTokens(tenant, user)).filter((t) => t.hash.startsWith(id));
    if (matches.length !== 1) return false;
    return this.#metadata.deleteToken(tenant, matches[0]!.hash);
  }
}
