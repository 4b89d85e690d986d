import type { TenantId, UserStore } from '../storage/ports.js';

/**
 * Whether `user` is an administrator of the registry `tenant` (the global one or a tenant):
 * the one question every administrators-only feature asks (managing users and invitations;
 * claiming any free namespace for any team and publishing new packages in every namespace;
 * reading the audit log, managing webhooks). The role is stored per user (`pkg-registry user
 * create --admin`, `user grant-admin`); a disabled account has none. The server's operator, on
 * the command line, needs no role: the admin commands act directly.
 */
export async function isAdministrator(users: Pick<UserStore, 'get'>, tenant: TenantId, user: string): Promise<boolean> {
  const record = await users.get(tenant, user);
  return record?.admin === true && !record.disabled;
}
