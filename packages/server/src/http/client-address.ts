import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** Whether the peer at `hop` (0: the socket's peer, then X-Forwarded-For from right to left) is a trusted proxy. */
export type ProxyTrust = (address: string, hop: number) => boolean;

const TRUST_NONE: ProxyTrust = () => false;
const TRUST_ALL: ProxyTrust = () => true;

/**
 * The `trustProxy` setting as a function, so that every route and step agrees on each client's
 * address, host and scheme. A hop
 * count trusts that many proxies nearest to the server, as Express does.
 */
export function proxyTrustOf(setting: boolean | number | string[]): ProxyTrust {
  if (setting === false) return TRUST_NONE;
  if (setting === true) return TRUST_ALL;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyAddr.compile(setting);
}

/** Where a request came from and which public host and scheme it names, under one trust policy. */
export class ClientAddressing {
  readonly trust: ProxyTrust;
  readonly #trustsNone: boolean;

  constructor(trust: ProxyTrust) {
    this.trust = trust;
    this.#trustsNone = trust === TRUST_NONE;
  }

  /** The client's IP: the socket's peer, or the first untrusted address of X-Forwarded-For. */
  ip(request: IncomingMessage): string {
    if (this.#trustsNone) return request.socket.remoteAddress ?? '';
    return proxyAddr(request, this.trust);
  }

  /** The Host the client asked for (X-Forwarded-Host from a trusted proxy), lowercased. */
  host(request: IncomingMessage): string {
    const forwarded = request.headers['x-forwarded-host'];
    const host = forwarded && this.#fromTrustedProxy(request) ? lastEntry(forwarded) : request.headers.host;
    return (host || 'localhost').toLowerCase();
  }

  /** `http` or `https` as the client sees it (X-Forwarded-Proto from a trusted proxy). */
  protocol(request: IncomingMessage): string {
    const forwarded = request.headers['x-forwarded-proto'];
    if (forwarded && this.#fromTrustedProxy(request)) return lastEntry(forwarded);
    return (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  }

  #fromTrustedProxy(request: IncomingMessage): boolean {
    return !this.#trustsNone && this.trust(request.socket.remoteAddress ?? '', 0);
  }
}

/** A header sent more than once (or listing several values) counts by its last value. */
function lastEntry(value: string | string[]): string {
  const text = Array.isArray(value) ? value.join(',') : value;
  const comma = text.lastIndexOf(',');
  return (comma === -1 ? text : text.slice(comma + 1)).trim();
}
