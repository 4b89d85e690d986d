/** How often and how patiently a registry call is retried. */
export interface RetryPolicy {
  /** Total attempts, the first included. */
  tries: number;
  baseDelayMs: number;
  /** Longest wait the client accepts, from backoff or from a Retry-After header. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { tries: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

/** Errors raised before a request reached the server: safe to retry for any method. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'ENETDOWN']);
/** Errors after which the server may or may not have acted: retried for idempotent calls only. */
const IN_FLIGHT_ERRORS = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

export type Outcome = { error: { code?: string } } | { status: number; retryAfter?: string | undefined };

/**
 * Milliseconds to wait before attempt `attempt + 1`, or null to stop. Connection failures,
 * 429 and 5xx are retried with exponential backoff (429 waits as long as Retry-After says);
 * a response to a non-idempotent call is never retried, since the server may have acted.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  outcome: Outcome,
  idempotent: boolean,
  now: Date,
): number | null {
  if (attempt >= policy.tries) return null;
  const backoff = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  if ('error' in outcome) {
    const code = outcome.error.code ?? '';
    if (CONNECT_ERRORS.has(code)) return backoff;
    if (idempotent && IN_FLIGHT_ERRORS.has(code)) return backoff;
    return null;
  }
  if (!idempotent) return null;
  if (outcome.status === 429) {
    const wait = retryAfterMs(outcome.retryAfter, now);
    if (wait === null) return backoff;
    return wait <= policy.maxDelayMs ? wait : null;
  }
  if (outcome.status >= 500 && outcome.status !== 501) return backoff;
  return null;
}

/** Retry-After as delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now.getTime());
}
