import type { Config } from '../config/config.js';
import type { Caller, RequestContext } from '../context.js';
import type { Services } from '../services/services.js';
import type { EffectiveSettings } from '../services/tenant-service.js';
import { GLOBAL_TENANT, type TenantId } from '../storage/ports.js';

/** Distinct (scheme, host) pairs remembered for anonymous requests. */
const ANONYMOUS_CONTEXTS = 64;

/** What a request says about itself that decides its context. */
export interface RequestFacts {
  /** The requested host, lowercased (X-Forwarded-Host when a trusted proxy sent it). */
  host: string;
  /** `http` or `https` as the client sees it. */
  protocol: string;
  authorization: string | undefined;
}

/**
 * Works out which registry a request is for (tenant from the Host), its public base URL, and
 * the caller behind a Bearer token; an invalid token makes the caller anonymous. Used by the
 * fastify hook and by the hot path alike. The common case (the global registry, no token or one
 * the token cache knows) is answered without a promise.
 */
export class RequestContextResolver {
  readonly #config: Config;
  readonly #services: Services;
  readonly #anonymous = new Map<string, RequestContext>();

  constructor(config: Config, services: Services) {
    this.#config = config;
    this.#services = services;
  }

  resolve(facts: RequestFacts): RequestContext | Promise<RequestContext> {
    const { tenants, auth } = this.#services;
    const token = bearerToken(facts.authorization);
    const tenant = tenants.globalOf(facts.host);
    if (tenant !== undefined) {
      if (token === undefined) return this.#anonymousGlobal(facts, tenant);
      const caller = auth.cachedCaller(tenant, token);
      if (caller !== undefined) return this.#contextOf(facts, tenant, tenants.globalSettings, caller);
    }
    return this.#resolveSlowly(facts, token);
  }

  /**
   * Anonymous requests to the global registry share one context per scheme and host (contexts
   * are never changed once made); a handful of hosts is the rule, so the memo is small.
   */
  #anonymousGlobal(facts: RequestFacts, tenant: TenantId): RequestContext {
    const key = `${facts.protocol} ${facts.host}`;
    let ctx = this.#anonymous.get(key);
    if (ctx === undefined) {
      ctx = this.#contextOf(facts, tenant, this.#services.tenants.globalSettings, null);
      if (this.#anonymous.size >= ANONYMOUS_CONTEXTS) this.#anonymous.clear();
      this.#anonymous.set(key, ctx);
    }
    return ctx;
  }

  async #resolveSlowly(facts: RequestFacts, token: string | undefined): Promise<RequestContext> {
    const { tenants, auth } = this.#services;
    const tenant = await tenants.resolve(facts.host);
    const settings = await tenants.settingsOf(tenant);
    const caller = await auth.authenticate(tenant, token);
    return this.#contextOf(facts, tenant, settings, caller);
  }

  #contextOf(facts: RequestFacts, tenant: TenantId, settings: EffectiveSettings, caller: Caller | null): RequestContext {
    const baseUrl = this.#baseUrlOf(facts, tenant);
    const tarballBaseUrl = tenant === GLOBAL_TENANT && this.#config.cdnUrl ? this.#config.cdnUrl : baseUrl;
    return { tenant, baseUrl, tarballBaseUrl, caller, settings };
  }

  #baseUrlOf(facts: RequestFacts, tenant: TenantId): string {
    const { publicUrl, registryDomain } = this.#config;
    if (publicUrl) {
      if (tenant === GLOBAL_TENANT) return publicUrl;
      // The configured public URL's scheme, port and path, on the tenant's own host name.
      const url = new URL(publicUrl);
      url.hostname = `${tenant}.${registryDomain!.replace(/\.$/, '')}`;
      return url.toString().replace(/\/+$/, '');
    }
    return `${facts.protocol}://${facts.host}`;
  }
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // Other schemes (Basic from an old `_auth` setting) are treated as anonymous.
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
