import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { RequestContext } from '../context.js';
import type { Services } from '../services/services.js';
import { GLOBAL_TENANT } from '../storage/ports.js';

/**
 * Resolves, before any route runs, which registry a request is for (tenant from the Host),
 * its public base URL, and the caller behind a Bearer token. An invalid token makes the caller
 * anonymous; routes that need a user then answer 401.
 */
export function installRequestContext(app: FastifyInstance, config: Config, services: Services): void {
  app.decorateRequest('ctx', null as unknown as RequestContext);
  app.addHook('onRequest', async (request) => {
    const host = hostOf(request);
    const tenant = await services.tenants.resolve(host);
    const baseUrl = baseUrlOf(request, config, tenant, host);
    const tarballBaseUrl = tenant === GLOBAL_TENANT && config.cdnUrl ? config.cdnUrl : baseUrl;
    const settings = await services.tenants.settingsOf(tenant);
    const caller = await services.auth.authenticate(tenant, bearerToken(request));
    request.ctx = { tenant, baseUrl, tarballBaseUrl, caller, settings };
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
