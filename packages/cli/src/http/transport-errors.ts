import { ClientError } from '../errors/client-errors.js';

const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN']);

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'timed out while connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for an answer',
  UND_ERR_BODY_TIMEOUT: 'timed out while receiving the answer',
  UND_ERR_SOCKET: 'connection closed unexpectedly',
  UND_ERR_CLOSED: 'connection closed',
  ECONNABORTED: 'connection aborted',
};

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

/** A failure of the network or the connection (not of a file, not a bug): what a retry may cure. */
export function isNetworkError(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && (code in REASONS || code.startsWith('UND_ERR_') || NOT_FOUND_CODES.has(code));
}

/** Why a transfer stopped, as people read it: `connection reset`, `timed out while receiving the answer`. */
export function networkReason(err: unknown): string {
  const code = errorCode(err) ?? 'UNKNOWN';
  return REASONS[code] ?? code;
}

/** The code of a transport error, looking through undici's wrappers. */
export function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR' && code !== 'UND_ERR_ABORTED') return code;
    current = (current as { cause?: unknown }).cause;
  }
  const message = (err as Error)?.message ?? '';
  if (/Proxy response \(\d+\)/.test(message)) return 'PROXY_REFUSED';
  return (err as { code?: string })?.code;
}

/**
 * Maps a failure to reach `host` to the spec's messages: a host that does not resolve or
 * cannot be routed to is "not found or unreachable"; everything else that stops a
 * connection (refused, reset, timeout, TLS, proxy) is "failed to connect". The hint says why.
 */
export function transportError(err: unknown, host: string): ClientError {
  if (err instanceof ClientError) return err as ClientError;
  const code = errorCode(err) ?? 'UNKNOWN';
  if (NOT_FOUND_CODES.has(code)) {
    return new ClientError('REGISTRY_UNREACHABLE', { host, reason: REASONS[code] ?? code }, { cause: err });
  }
  if (TLS_CODES.has(code)) {
    return new ClientError('TLS_FAILED', { host, reason: code }, { cause: err });
  }
  if (code === 'PROXY_REFUSED') {
    return new ClientError('PROXY_REFUSED', { host, reason: (err as Error).message }, { cause: err });
  }
  const reason = REASONS[code] ?? code;
  return new ClientError('CONNECT_FAILED', { host, reason }, { cause: err });
}
