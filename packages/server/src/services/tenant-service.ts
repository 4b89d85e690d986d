import type { ServerDeps } from '../deps.js';
import { GLOBAL_TENANT, type TenantId } from '../storage/ports.js';

/** Maps a request's Host to the registry that serves it. */
export class TenantService {
  readonly #deps: ServerDeps;

  constructor(deps: ServerDeps) {
    this.#deps = deps;
  }

  /** The tenant serving `host`; the global registry for every host until tenants exist. */
  async resolve(_host: string): Promise<TenantId> {
    void this.#deps;
    return GLOBAL_TENANT;
  }
}
