import { ConfigError } from '../../../config/config.js';

export interface RedisLocation {
  /** The URL as ioredis understands it (our own `prefix` parameter removed). */
  url: string;
  /** Prefix of every key and channel name, so registries (or test runs) can share one Redis. */
  prefix: string;
}

/** Reads `redis://[:password@]host:6379[/db][?prefix=pkg-registry:]` (or `rediss://` for TLS). */
export function parseRedisUrl(url: string): RedisLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError("setting 'redis' is not a valid redis:// URL");
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError("setting 'redis' must be a redis:// or rediss:// URL");
  }
  const prefix = parsed.searchParams.get('prefix') ?? 'pkg-registry:';
  if (!/^[\w:.-]{0,100}$/.test(prefix)) {
    throw new ConfigError("setting 'redis': prefix may hold only letters, digits and _ : . -");
  }
  parsed.searchParams.delete('prefix');
  return { url: parsed.toString(), prefix };
}
