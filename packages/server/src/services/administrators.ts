import type { RegistryStore, TenantId } from '../storage/ports.js';

/**
 * Whether `user` administers the registry `tenant` (the global one, or a tenant): administrators
 * may claim any free namespace for any team and publish new packages in every namespace.
 *
 * The one place that answers it. This release has no administrator role on accounts yet, so no
 * account is an administrator here: the server's operator administers through the command line
 * (`pkg-registry team …`), which never asks. When accounts get a role, this reads it.
 */
export async function isAdministrator(_registry: RegistryStore, _tenant: TenantId, _user: string): Promise<boolean> {
  return false;
}
