import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { RequestContext } from '../context.js';
import type { Services } from '../services/services.js';
import type { Caller } from '../context.js';
import type { EffectiveSettings } from '../services/tenant-service.js';
import { GLOBAL_TENANT, type TenantId } from '../storage/ports.js';

/**
 * Resolves, before any route runs, which registry a request is for (tenant from the Host),
 * its public base URL, and the caller behind a Bearer token. An invalid token makes the caller
 * anonymous; routes that need a user then answer 401.
 */
export function installRequestContext(app: FastifyInstance, config: Config, services: Services): void {
  app.decorateRequest('ctx', null as unknown as RequestContext);
  const contextOf = (
    request: FastifyRequest,
    host: string,
    tenant: TenantId,
    settings: EffectiveSettings,
    caller: Caller | null,
  ) => {
    const baseUrl = baseUrlOf(request, config, tenant, host);
    const tarballBaseUrl = tenant === GLOBAL_TENANT && config.cdnUrl ? config.cdnUrl : baseUrl;
    return { tenant, baseUrl, tarballBaseUrl, caller, settings };
  };
  const resolve = async (request: FastifyRequest, host: string, token: string | undefined): Promise<RequestContext> => {
    const tenant = await services.tenants.resolve(host);
    const settings = await services.tenants.settingsOf(tenant);
    const caller = await services.auth.authenticate(tenant, token);
    return contextOf(request, host, tenant, settings, caller);
  };
  // Callback-style, with a synchronous path for the common case (the global registry, no token
  // or one the token cache knows): most requests build their context without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const host = hostOf(request);
    const token = bearerToken(request);
    const tenant = services.tenants.globalOf(host);
    if (tenant !== undefined) {
      const caller = token === undefined ? null : services.auth.cachedCaller(tenant, token);
      if (caller !== undefined) {
        request.ctx = contextOf(request, host, tenant, services.tenants.globalSettings, caller);
        return done();
      }
    }
    resolve(request, host, token).then((ctx) => {
      request.ctx = ctx;
      done();
    }, done);
  });
}

function hostOf(request: FastifyRequest): string {
  // request.host honours X-Forwarded-Host only when trustProxy is configured.
  return (request.host || 'localhost').toLowerCase();
}

function baseUrlOf(request: FastifyRequest, config: Config, tenant: string, host: string): string {
  if (config.publicUrl) {
    if (tenant === GLOBAL_TENANT) return config.publicUrl;
    // The configured public URL's scheme, port and path, on the tenant's own host name.
    const url = new URL(config.publicUrl);
    url.hostname = `${tenant}.${config.registryDomain!.replace(/\.$/, '')}`;
    return url.toString().replace(/\/+$/, '');
  }
  return `${request.protocol}://${host}`;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  // Other schemes (Basic from an old `_auth` setting) are treated as anonymous.
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
