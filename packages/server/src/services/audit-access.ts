import type { Caller } from '../context.js';
import type { RegistryStore, TenantId } from '../storage/ports.js';

/**
 * Who administers a registry: who may read its audit log and manage its webhooks over HTTP and
 * on the web. The one place that decides it.
 *
 * The server has no administrator role yet (issue 26 item 2): until it does, nobody does over
 * HTTP, and the operator uses `pkg-registry audit` and `pkg-registry webhook` on the server.
 * When the role lands, `is` asks the registry store for it.
 */
export class Administrators {
  readonly #registry: RegistryStore;

  constructor(registry: RegistryStore) {
    this.#registry = registry;
  }

  async is(tenant: TenantId, caller: Caller | null): Promise<boolean> {
    void this.#registry;
    void tenant;
    void caller;
    return false;
  }
}
