import { configuredBaseUrl, tarballBaseUrlOf } from '../config/public-url.js';
import { ProtocolError } from '@pkg/protocol';
import type { Config } from '../config/config.js';
import type { Caller, EffectiveSettings, RequestContext } from '../context.js';
import type { BasicCredentials } from '../services/auth-service.js';
import type { Services } from '../services/services.js';
import type { TenantId } from '../storage/ports.js';

/** Distinct (scheme, host) pairs remembered for anonymous requests. */
const ANONYMOUS_CONTEXTS = 64;

/** What a request says about itself that decides its context. */
export interface RequestFacts {
  /** The requested host, lowercased (X-Forwarded-Host when a trusted proxy sent it). */
  host: string;
  /** `http` or `https` as the client sees it. */
  protocol: string;
  authorization: string | undefined;
  /** The client's address, for throttling Basic credentials (asked only when there are some). */
  clientIp: () => string;
  /**
   * Whether `Authorization: Basic` is checked. Not on the routes open to all: npm's legacy login
   * sends the name and password being signed up or logged in with as Basic, and the login
   * route checks them itself.
   */
  basic: boolean;
}

/** What the Authorization header carries. */
type Credential = { bearer: string } | { basic: BasicCredentials } | undefined;

/**
 * Works out which registry a request is for (tenant from the Host), its public base URL, and
 * the caller behind a Bearer token or Basic name and password (what npm and Unity send for an
 * `_auth` setting). An invalid token makes the caller anonymous; a wrong password is refused
 * (`credentialError`) as a login would refuse it, since it is one. Used by the
 * request-context step of every request. The common case (the global registry, no token or one
 * the token cache knows) is answered without a promise.
 */
export class RequestContextResolver {
  readonly #config: Config;
  readonly #services: Services;
  readonly #anonymous = new Map<string, RequestContext>();
  /** Hosts already found to be host names: checked once, not per request. */
  readonly #validHosts = new Set<string>();

  constructor(config: Config, services: Services) {
    this.#config = config;
    this.#services = services;
  }

  resolve(facts: RequestFacts): RequestContext | Promise<RequestContext> {
    const { tenants, auth } = this.#services;
    const credential = credentialOf(facts);
    const tenant = tenants.globalOf(facts.host);
    if (tenant !== undefined) {
      if (credential === undefined) return this.#anonymousGlobal(facts, tenant);
      const caller =
        'bearer' in credential ? auth.cachedCaller(tenant, credential.bearer) : auth.cachedBasicCaller(tenant, credential.basic);
      // null: a token the cache knows has expired; the slow way finds the words for why.
      if (caller) return this.#contextOf(facts, tenant, tenants.globalSettings, caller);
    }
    return this.#resolveSlowly(facts, credential);
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

  async #resolveSlowly(facts: RequestFacts, credential: Credential): Promise<RequestContext> {
    const { tenants, auth } = this.#services;
    const tenant = await tenants.resolve(facts.host);
    const settings = await tenants.settingsOf(tenant);
    if (credential === undefined) return this.#contextOf(facts, tenant, settings, null);
    if ('bearer' in credential) {
      const caller = await auth.authenticate(tenant, credential.bearer);
      const ctx = this.#contextOf(facts, tenant, settings, caller);
      return caller ? ctx : { ...ctx, tokenRefusal: await auth.refusalOf(tenant, credential.bearer) };
    }
    try {
      return this.#contextOf(facts, tenant, settings, await auth.authenticateBasic(tenant, credential.basic));
    } catch (err) {
      // Answered by the read-access step, once the request is counted against the anonymous limit.
      return { ...this.#contextOf(facts, tenant, settings, null), credentialError: err as Error };
    }
  }

  /**
   * 400 for a Host header that is not a host name with an optional port (`x y`, `a/b`, `u@h`):
   * it becomes the base URL of every link the registry answers with.
   */
  #checkHost(host: string): void {
    let url: URL | undefined;
    try {
      url = new URL(`http://${host}/`);
    } catch {
      url = undefined;
    }
    if (!url || url.hostname === '' || url.pathname !== '/' || url.username || url.password || url.search || url.hash) {
      throw new ProtocolError('BAD_REQUEST', 'The Host header is not a host name with an optional port');
    }
    if (this.#validHosts.size >= ANONYMOUS_CONTEXTS) this.#validHosts.clear();
    this.#validHosts.add(host);
  }

  #contextOf(facts: RequestFacts, tenant: TenantId, settings: EffectiveSettings, caller: Caller | null): RequestContext {
    // After the tenant's lookup, so that a host naming no registry stays a 404.
    if (!this.#validHosts.has(facts.host)) this.#checkHost(facts.host);
    const baseUrl = this.#baseUrlOf(facts, tenant);
    const tarballBaseUrl = tarballBaseUrlOf(this.#config, tenant, baseUrl);
    return { tenant, baseUrl, tarballBaseUrl, caller, settings };
  }

  #baseUrlOf(facts: RequestFacts, tenant: TenantId): string {
    return configuredBaseUrl(this.#config, tenant) ?? `${facts.protocol}://${facts.host}`;
  }
}

function credentialOf(facts: RequestFacts): Credential {
  const header = facts.authorization;
  if (!header) return undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return { bearer: bearer[1]! };
  const basic = facts.basic ? /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header) : null;
  if (!basic) return undefined;
  // RFC 7617: name and password are split at the first colon; a name cannot hold one.
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const clientIp = facts.clientIp();
  if (colon <= 0) return { basic: { name: decoded, password: '', clientIp } };
  return { basic: { name: decoded.slice(0, colon), password: decoded.slice(colon + 1), clientIp } };
}
