import type { Caller } from '../context.js';
import type { RegistryStore, TenantId } from '../storage/ports.js';
import { isAdministrator } from './administrators.js';

/**
 * Who administers a registry: who may read its audit log and manage its webhooks over HTTP and
 * on the web. The one place that decides it for them: a signed-in user with the registry's
 * administrator role (services/administrators.ts). The operator uses `pkg-registry audit` and
 * `pkg-registry webhook` on the server, which ask nobody.
 */
export class Administrators {
  readonly #registry: RegistryStore;

  constructor(registry: RegistryStore) {
    this.#registry = registry;
  }

  async is(tenant: TenantId, caller: Caller | null): Promise<boolean> {
    return caller !== null && (await isAdministrator(this.#registry, tenant, caller.user));
  }
}
