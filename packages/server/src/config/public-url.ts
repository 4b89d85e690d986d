import type { Config } from './config.js';

/**
 * The public URL of a registry as configured: `publicUrl` for the global registry, and its
 * scheme, port and path on `<tenant>.<registryDomain>` for a tenant. Undefined when `publicUrl`
 * is unset (the server then derives it from each request).
 */
export function configuredBaseUrl(config: Pick<Config, 'publicUrl' | 'registryDomain'>, tenant: string): string | undefined {
  const { publicUrl, registryDomain } = config;
  if (!publicUrl) return undefined;
  if (tenant === '') return publicUrl;
  const url = new URL(publicUrl);
  url.hostname = `${tenant}.${registryDomain!.replace(/\.$/, '')}`;
  return url.toString().replace(/\/+$/, '');
}
