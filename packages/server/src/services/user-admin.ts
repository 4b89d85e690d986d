import { ProtocolError, userNotFound } from '@pkg/protocol';
import type { AccountStores, TenantId, UserRecord } from '../storage/ports.js';
import type { TeamStore } from '../storage/team-store.js';
import { checkEmail, USER_NAME } from './account-names.js';
import { hashPassword } from './passwords.js';
import { checkNewPassword } from './password-policy.js';

/** A user an administrator creates. */
export interface NewUser {
  name: string;
  email?: string | undefined;
  password: string;
  admin?: boolean | undefined;
}

/** What an administrator sees of a user (never the password hash, the TOTP secret or codes). */
export interface UserSummary {
  name: string;
  email: string;
  createdAt: string;
  disabled: boolean;
  admin: boolean;
  /** The two-factor mode in use, or null. */
  twoFactor: string | null;
}

export function summaryOfUser(user: UserRecord): UserSummary {
  const factor = user.secondFactor;
  return {
    name: user.name,
    email: user.email,
    createdAt: user.createdAt,
    disabled: user.disabled,
    admin: user.admin === true,
    twoFactor: factor && !factor.pending ? factor.mode : null,
  };
}

/**
 * Account administration, the same for `pkg-registry user …` and the administrators' HTTP API:
 * create, list, disable, enable, reset a password, grant or withdraw the administrator role,
 * delete. New passwords meet the password policy. Refusals are ProtocolErrors that say why.
 */
export class UserAdmin {
  readonly #registry: AccountStores;
  readonly #passwordMinLength: number;
  readonly #now: () => Date;
  readonly #teams: Pick<TeamStore, 'forgetUser'> | undefined;

  constructor(
    registry: AccountStores,
    options: { passwordMinLength: number; now?: () => Date; teams?: Pick<TeamStore, 'forgetUser'> },
  ) {
    this.#registry = registry;
    this.#passwordMinLength = options.passwordMinLength;
    this.#now = options.now ?? (() => new Date());
    this.#teams = options.teams;
  }

  list(tenant: TenantId): Promise<UserRecord[]> {
    return this.#registry.users.list(tenant);
  }

  /** Creates an account whatever the sign-up setting (an administrator's decision). */
  async create(tenant: TenantId, input: NewUser): Promise<UserRecord> {
    checkNewUser(input.name, input.email);
    checkNewPassword(input.password, this.#passwordMinLength, input.name);
    const user: UserRecord = {
      name: input.name,
      email: input.email ?? '',
      passwordHash: await hashPassword(input.password),
      createdAt: this.#now().toISOString(),
      disabled: false,
      ...(input.admin ? { admin: true } : {}),
    };
    if (!(await this.#registry.users.create(tenant, user))) {
      throw new ProtocolError('CONFLICT', `user '${input.name}' exists already in ${registryName(tenant)}`);
    }
    return user;
  }

  /** Disabling also revokes every token of the user; returns how many. */
  async setDisabled(tenant: TenantId, name: string, disabled: boolean): Promise<number> {
    await this.require(tenant, name);
    await this.#registry.users.update(tenant, name, { disabled });
    return disabled ? this.#registry.tokens.deleteOfUser(tenant, name) : 0;
  }

  async setAdmin(tenant: TenantId, name: string, admin: boolean): Promise<void> {
    await this.require(tenant, name);
    await this.#registry.users.update(tenant, name, { admin });
  }

  /** Sets a new password and revokes every token of the user; returns how many. */
  async resetPassword(tenant: TenantId, name: string, password: string): Promise<number> {
    checkNewPassword(password, this.#passwordMinLength, name);
    await this.require(tenant, name);
    await this.#registry.users.update(tenant, name, { passwordHash: await hashPassword(password) });
    return this.#registry.tokens.deleteOfUser(tenant, name);
  }

  /**
   * Deletes the account: its tokens are revoked, its web sessions and team memberships end with
   * it. Its packages stay, and so do the maintainers lists that name it (a new account of that
   * name is not given them by the registry, but a maintainers list names it until an owner
   * changes it).
   * Returns how many tokens were revoked.
   */
  async delete(tenant: TenantId, name: string): Promise<number> {
    await this.require(tenant, name);
    const tokens = (await this.#registry.tokens.listOfUser(tenant, name)).length;
    // Deleted meanwhile by another administrator: the same answer as an unknown user.
    if (!(await this.#registry.users.delete(tenant, name))) await this.require(tenant, name);
    // Its team memberships end too (a team store of its own: after the account, not with it).
    await this.#teams?.forgetUser(tenant, name);
    return tokens;
  }

  async require(tenant: TenantId, name: string): Promise<UserRecord> {
    const user = USER_NAME.test(name) ? await this.#registry.users.get(tenant, name) : undefined;
    if (!user) throw userNotFound(name, registryName(tenant));
    return user;
  }
}

/** The name and e-mail of a new account, checked as sign-up checks them. */
export function checkNewUser(name: string, email: string | undefined): void {
  if (!USER_NAME.test(name)) {
    throw new ProtocolError('VALIDATION_ERROR', 'user name must be 1-128 characters of letters, digits, ".", "_" and "-"');
  }
  checkEmail(email);
}

export function registryName(tenant: TenantId): string {
  return tenant === '' ? 'the global registry' : `tenant '${tenant}'`;
}
