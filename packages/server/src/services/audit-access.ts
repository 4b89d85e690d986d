import type { Caller } from '../context.js';
import type { AccountStores, TenantId } from '../storage/ports.js';
import { isAdministrator } from './administrators.js';

/**
 * Who may read a registry's audit log and manage its webhooks over HTTP and on the web: its
 * administrators, as services/administrators.ts (the one place that decides it) answers.
 */
export class Administrators {
  readonly #registry: AccountStores;

  constructor(registry: AccountStores) {
    this.#registry = registry;
  }

  async is(tenant: TenantId, caller: Caller | null): Promise<boolean> {
    return caller !== null && (await isAdministrator(this.#registry.users, tenant, caller.user));
  }
}
