/**
 * The registry URL as scoped registries compare it: scheme and host are case-insensitive and a
 * trailing slash means nothing to the Unity Package Manager.
 */
export function sameRegistryUrl(a: string, b: string): boolean {
  return normalizeRegistryUrl(a) === normalizeRegistryUrl(b);
}

export function normalizeRegistryUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url.replace(/\/+$/, '');
  }
}
