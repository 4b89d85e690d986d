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

/**
 * The base of a registry's tarball links: the global registry's `cdnUrl` when it has one, else
 * its base URL (`baseUrl`, from the configuration or the request).
 */
export function tarballBaseUrlOf(config: Pick<Config, 'cdnUrl'>, tenant: string, baseUrl: string): string {
  return tenant === '' && config.cdnUrl ? config.cdnUrl : baseUrl;
}

/** The base of a registry's tarball links as configured; undefined when `publicUrl` is unset. */
export function configuredTarballBaseUrl(
  config: Pick<Config, 'publicUrl' | 'registryDomain' | 'cdnUrl'>,
  tenant: string,
): string | undefined {
  const baseUrl = configuredBaseUrl(config, tenant);
  return baseUrl === undefined ? undefined : tarballBaseUrlOf(config, tenant, baseUrl);
}
