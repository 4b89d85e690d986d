import { ClientError } from '../errors/client-errors.js';
import { isLoopbackHost } from './loopback.js';

declare const registryUrlBrand: unique symbol;
/** A registry URL that passed `parseRegistryUrl`: http(s), no credentials, no trailing slash. */
export type RegistryUrl = string & { readonly [registryUrlBrand]: true };

/**
 * Validates and normalizes a registry URL. Plain http:// is refused unless the host is
 * loopback: tokens and packages must never cross a network unencrypted.
 */
export function parseRegistryUrl(input: string): RegistryUrl {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new ClientError('INVALID_REGISTRY_URL', { url: input });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ClientError('REGISTRY_URL_SCHEME', { url: input });
  }
  if (url.username || url.password) {
    throw new ClientError('REGISTRY_URL_CREDENTIALS');
  }
  if (url.search || url.hash) {
    throw new ClientError('REGISTRY_URL_QUERY', { url: input });
  }
  assertSecureUrl(url);
  const pathname = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${pathname}` as RegistryUrl;
}

/** Throws unless `url` is https://, or http:// to a loopback host. */
export function assertSecureUrl(url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return;
  if (url.protocol === 'http:') {
    throw new ClientError('INSECURE_REGISTRY', { host: url.host });
  }
  throw new ClientError('REGISTRY_URL_SCHEME', { url: url.href });
}

/**
 * The key tokens are stored under: the registry's host and port. A tenant registry
 * (`<tenant>.<domain>`) is its own host, so its token never mixes with the global one.
 */
export function registryHostKey(registry: RegistryUrl | URL): string {
  const url = typeof registry === 'string' ? new URL(registry) : registry;
  return url.host.toLowerCase();
}

/** `registry` joined with a path that starts with `/`. */
export function registryEndpoint(registry: RegistryUrl, pathname: string): URL {
  return new URL(`${registry}${pathname}`);
}
