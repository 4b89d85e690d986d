import { ProtocolError } from '@pkg/protocol';
import type { ServerDeps } from '../deps.js';
import { GLOBAL_TENANT, type TenantId, type TenantRecord, type TenantSettings } from '../storage/ports.js';
import { compileUplinks, type UplinkConfig, type UplinkRules } from '../config/uplink-config.js';
import type { EffectiveSettings } from '../context.js';
import { tenantNameProblem } from './tenant-names.js';

export interface TenantServiceOptions {
  /**
   * How long a tenant lookup (found or not) is reused. Tenants are created and deleted by the
   * admin command line in another process, so this bounds how late a change is seen.
   */
  cacheMs?: number;
  /** Most lookups kept (unknown hosts are cached too, so a scan cannot grow the cache unbounded). */
  cacheSize?: number;
}

interface CacheEntry {
  record: TenantRecord | undefined;
  expires: number;
  /** The store's credentialsVersion when it was read (a tenant write anywhere moves it). */
  version: number | undefined;
}

/**
 * The package name of an invalidation that concerns a whole tenant (created, configured or
 * deleted): no package is named `''`, so the package caches drop nothing for it.
 */
export const WHOLE_TENANT = '';

/** What TenantService reaches of the server's deps. */
export type TenantServiceDeps = Pick<ServerDeps, 'config' | 'registry' | 'env'> & Partial<Pick<ServerDeps, 'bus'>>;

/** Maps a request's Host to the registry that serves it, and knows each registry's settings. */
export class TenantService {
  readonly #deps: TenantServiceDeps;
  readonly #cacheMs: number;
  readonly #cacheSize: number;
  readonly #cache = new Map<TenantId, CacheEntry>();
  readonly #pending = new Map<TenantId, Promise<TenantRecord | undefined>>();
  /**
   * The incarnation of each existing tenant this node last read (see scopeOf). Bounded by the
   * tenants that exist, not by the hosts asked for: absent tenants are not kept.
   */
  readonly #incarnations = new Map<TenantId, string>();
  /** Lookups started before the last whole-tenant invalidation are not kept. */
  #generation = 0;
  /** Makes the scope of a tenant this node has not read unique: nothing cached under it is found again. */
  #unknownScopes = 0;
  readonly #suffix: string | undefined;
  #globalSettings: EffectiveSettings | undefined;
  /** Compiled once per configuration value: a tenant record is re-read every second or so. */
  readonly #compiledUplinks = new WeakMap<readonly UplinkConfig[], UplinkRules | undefined>();

  constructor(deps: TenantServiceDeps, options: TenantServiceOptions = {}) {
    this.#deps = deps;
    this.#cacheMs = options.cacheMs ?? 1000;
    this.#cacheSize = options.cacheSize ?? 10_000;
    const domain = deps.config.registryDomain?.replace(/\.$/, '');
    this.#suffix = domain ? `.${domain}` : undefined;
    // The admin command line announces tenant changes on the bus: every node re-reads the tenant.
    deps.bus?.subscribe((tenant, name) => {
      if (name === WHOLE_TENANT) this.forget(tenant);
    });
    deps.bus?.subscribeReset(() => this.forget());
  }

  /**
   * The key every cache keeps this tenant's things under: its name and the incarnation this
   * node last read. Once a node has read a re-created tenant, nothing cached for the deleted
   * one is found again, in memory or in shared counters. Synchronous: asked per request.
   */
  readonly scopeOf = (tenant: TenantId): string => {
    if (tenant === GLOBAL_TENANT) return GLOBAL_TENANT;
    const incarnation = this.#incarnations.get(tenant);
    // A tenant not read yet (or gone): a key nothing was ever cached under, nor ever will be again.
    if (incarnation === undefined) return `${tenant}\0?${++this.#unknownScopes}`;
    return `${tenant}\0${incarnation}`;
  };

  /** Drops what this node remembers of a tenant (all of them without one): the next request reads it. */
  forget(tenant?: TenantId): void {
    this.#generation++;
    if (tenant === undefined) this.#cache.clear();
    else this.#cache.delete(tenant);
  }

  /**
   * The registry serving `host` (a Host header value, port allowed): `<tenant>.<registryDomain>`
   * is that tenant, 404 NOT_FOUND when it does not exist; every other host is the global one.
   */
  async resolve(host: string): Promise<TenantId> {
    const label = this.tenantLabelOf(host);
    if (label === undefined) return GLOBAL_TENANT;
    if (tenantNameProblem(label) !== undefined || (await this.#lookup(label)) === undefined) {
      throw new ProtocolError('NOT_FOUND', `There is no registry at '${truncate(label)}${this.#suffix}'`);
    }
    return label;
  }

  /** The tenant label a host names under registryDomain, or undefined for the global registry. */
  tenantLabelOf(host: string): string | undefined {
    if (this.#suffix === undefined) return undefined;
    const name = hostName(host);
    if (!name.endsWith(this.#suffix)) return undefined;
    const label = name.slice(0, -this.#suffix.length);
    return label.length > 0 ? label : undefined;
  }

  /**
   * The global registry when `host` names no tenant (decided without any lookup), else
   * undefined: the caller then needs `resolve`.
   */
  globalOf(host: string): TenantId | undefined {
    return this.tenantLabelOf(host) === undefined ? GLOBAL_TENANT : undefined;
  }

  /** The global registry's settings: the server configuration, computed once. */
  get globalSettings(): EffectiveSettings {
    return (this.#globalSettings ??= Object.freeze(this.#effective({})));
  }

  async settingsOf(tenant: TenantId): Promise<EffectiveSettings> {
    if (tenant === GLOBAL_TENANT) return this.globalSettings;
    return this.#effective((await this.#lookup(tenant))?.settings ?? {});
  }

  #effective(own: TenantSettings): EffectiveSettings {
    const { config } = this.#deps;
    return {
      signup: own.signup ?? config.signup,
      readAccess: own.readAccess ?? config.readAccess,
      requireTwoFactor: own.requireTwoFactor ?? config.requireTwoFactor,
      rateLimitAnonymous: own.rateLimitAnonymous ?? config.rateLimitAnonymous,
      rateLimitAuthenticated: own.rateLimitAuthenticated ?? config.rateLimitAuthenticated,
      rateLimitPublish: own.rateLimitPublish ?? config.rateLimitPublish,
      quotaBytes: own.quotaBytes ?? config.quotaBytes,
      quotaPackages: own.quotaPackages ?? config.quotaPackages,
      rateLimitWeb: config.rateLimitWeb,
      uplinks: this.#uplinksOf(own.uplinks ?? config.uplinks),
    };
  }

  #uplinksOf(configs: readonly UplinkConfig[]): UplinkRules | undefined {
    if (this.#compiledUplinks.has(configs)) return this.#compiledUplinks.get(configs);
    const rules = compileUplinks(configs, this.#deps.env ?? process.env);
    this.#compiledUplinks.set(configs, rules);
    return rules;
  }

  /**
   * One database read per tenant per cacheMs, however many requests arrive meanwhile; sooner
   * when the store tells that tenants changed (another process's write on SQLite) or the bus
   * announced a change of this tenant.
   */
  async #lookup(name: TenantId): Promise<TenantRecord | undefined> {
    const now = performance.now();
    const registry = this.#deps.registry;
    const version = registry.credentialsVersionCoversOthers ? registry.credentialsVersion?.() : undefined;
    const cached = this.#cache.get(name);
    if (cached && cached.expires > now && cached.version === version) return cached.record;
    let pending = this.#pending.get(name);
    if (!pending) {
      const generation = this.#generation;
      pending = registry.tenants.get(name).finally(() => this.#pending.delete(name));
      this.#pending.set(name, pending);
      const record = await pending;
      if (record) this.#incarnations.set(name, record.incarnation);
      else this.#incarnations.delete(name);
      if (generation === this.#generation) {
        if (this.#cache.size >= this.#cacheSize) this.#cache.clear();
        this.#cache.set(name, { record, expires: performance.now() + this.#cacheMs, version });
      }
      return record;
    }
    return pending;
  }
}

/** `Acme.Registry.Example.com.:4873` → `acme.registry.example.com`. */
function hostName(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) name = name.slice(0, name.indexOf(']') + 1);
  else if (name.includes(':')) name = name.slice(0, name.indexOf(':'));
  return name.replace(/\.$/, '');
}

function truncate(value: string): string {
  return value.length > 63 ? `${value.slice(0, 63)}…` : value;
}
