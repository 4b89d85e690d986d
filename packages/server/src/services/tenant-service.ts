import type { ServerDeps } from '../deps.js';
import { GLOBAL_TENANT, type TenantId } from '../storage/ports.js';

/** Effective settings of one registry: the tenant's own overrides over the server configuration. */
export interface EffectiveSettings {
  signup: boolean;
  readAccess: 'anonymous' | 'token';
  rateLimitAnonymous: number;
  rateLimitAuthenticated: number;
  rateLimitPublish: number;
}

/** Maps a request's Host to the registry that serves it, and knows each registry's settings. */
export class TenantService {
  readonly #deps: ServerDeps;

  constructor(deps: ServerDeps) {
    this.#deps = deps;
  }

  /** The tenant serving `host`; the global registry for every host until tenants exist. */
  async resolve(_host: string): Promise<TenantId> {
    return GLOBAL_TENANT;
  }

  async settingsOf(_tenant: TenantId): Promise<EffectiveSettings> {
    const { config } = this.#deps;
    return {
      signup: config.signup,
      readAccess: config.readAccess,
      rateLimitAnonymous: config.rateLimitAnonymous,
      rateLimitAuthenticated: config.rateLimitAuthenticated,
      rateLimitPublish: config.rateLimitPublish,
    };
  }
}
