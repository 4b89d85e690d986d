import { isIP } from 'node:net';

/**
 * Loopback hosts: `localhost`, any `*.localhost` (RFC 6761 reserves the whole domain for
 * loopback), 127.0.0.0/8 and ::1. Only these may be reached over plain http://.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(host);
  return false;
}

/** Names the client resolves itself, without asking DNS (RFC 6761 special-use names). */
export function specialUseAddress(hostname: string): { address: string; family: 4 | 6 } | 'nxdomain' | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return { address: '127.0.0.1', family: 4 };
  // `.invalid` never exists; answering at once keeps such lookups off the network.
  if (host === 'invalid' || host.endsWith('.invalid')) return 'nxdomain';
  return null;
}
