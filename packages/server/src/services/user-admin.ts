import type { RegistryStore, TenantId, UserRecord } from '../storage/ports.js';
import { hashPassword } from './passwords.js';
import { AdminError } from './tenant-admin.js';

/** Account administration (the admin command line): list, disable, enable, reset a password. */
export class UserAdmin {
  readonly #registry: RegistryStore;

  constructor(registry: RegistryStore) {
    this.#registry = registry;
  }

  list(tenant: TenantId): Promise<UserRecord[]> {
    return this.#registry.listUsers(tenant);
  }

  /** Disabling also revokes every token of the user; returns how many. */
  async setDisabled(tenant: TenantId, name: string, disabled: boolean): Promise<number> {
    await this.#require(tenant, name);
    await this.#registry.updateUser(tenant, name, { disabled });
    return disabled ? this.#registry.deleteUserTokens(tenant, name) : 0;
  }

  /** Sets a new password and revokes every token of the user; returns how many. */
  async resetPassword(tenant: TenantId, name: string, password: string): Promise<number> {
    if (password.length === 0 || password.length > 1024) throw new AdminError('a password must be 1-1024 characters');
    await this.#require(tenant, name);
    await this.#registry.updateUser(tenant, name, { passwordHash: await hashPassword(password) });
    return this.#registry.deleteUserTokens(tenant, name);
  }

  async #require(tenant: TenantId, name: string): Promise<UserRecord> {
    const user = await this.#registry.getUser(tenant, name);
    if (!user)
      throw new AdminError(`user '${name}' does not exist in ${tenant === '' ? 'the global registry' : `tenant '${tenant}'`}`);
    return user;
  }
}
