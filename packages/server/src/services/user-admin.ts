import type { MetadataStore, TenantId, UserRecord } from '../storage/ports.js';
import { hashPassword } from './passwords.js';
import { AdminError } from './tenant-admin.js';

/** Account administration (the admin command line): list, disable, enable, reset a password. */
export class UserAdmin {
  readonly #metadata: MetadataStore;

  constructor(metadata: MetadataStore) {
    this.#metadata = metadata;
  }

  list(tenant: TenantId): Promise<UserRecord[]> {
    return this.#metadata.listUsers(tenant);
  }

  /** Disabling also revokes every token of the user; returns how many. */
  async setDisabled(tenant: TenantId, name: string, disabled: boolean): Promise<number> {
    await this.#require(tenant, name);
    await this.#metadata.updateUser(tenant, name, { disabled });
    return disabled ? this.#metadata.deleteUserTokens(tenant, name) : 0;
  }

  /** Sets a new password and revokes every token of the user; returns how many. */
  async resetPassword(tenant: TenantId, name: string, password: string): Promise<number> {
    if (password.length === 0 || password.length > 1024) throw new AdminError('a password must be 1-1024 characters');
    await this.#require(tenant, name);
    await this.#metadata.updateUser(tenant, name, { passwordHash: await hashPassword(password) });
    return this.#metadata.deleteUserTokens(tenant, name);
  }

  async #require(tenant: TenantId, name: string): Promise<UserRecord> {
    const user = await this.#metadata.getUser(tenant, name);
    if (!user)
      throw new AdminError(`user '${name}' does not exist in ${tenant === '' ? 'the global registry' : `tenant '${tenant}'`}`);
    return user;
  }
}
