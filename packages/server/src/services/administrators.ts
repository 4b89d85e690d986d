import type { ServerDeps } from '../deps.js';
import type { TenantId } from '../storage/ports.js';

/** Whether `user` administers registry `tenant` (the global registry's or a tenant's administrators). */
export type IsAdministrator = (tenant: TenantId, user: string) => Promise<boolean>;

/**
 * The one place that answers "is this user an administrator of this registry?" for the rules
 * that let administrators act on any package (advisories). There is no administrator role in
 * the account store yet, so nobody is one: the accounts work that adds the role answers here,
 * and every rule that asks starts to honour it without another change.
 */
export function administratorsOf(deps: Pick<ServerDeps, 'registry'>): IsAdministrator {
  void deps;
  return async () => false;
}
