/** A backing service a request needed and could not reach, in operator words. */
export interface UnavailableDependency {
  /** `database`, `tarball storage` or `Redis`. */
  dependency: string;
  /** A short reason for the log (a code, never a connection string). */
  reason: string;
}

/** Socket failures: the service is down, restarting, or not reachable over the network. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * PostgreSQL's connection classes (08…), shutdown and start-up (57P01–57P03), too many
 * connections (53300), a serialization the server gave up on while failing over (40001 is not:
 * it is retried inside the store).
 */
const POSTGRES_UNAVAILABLE = /^(08\d{3}|57P0[123]|53300)$/;

/** pg's own messages when a pooled session dies or no session can be had in time. */
const POSTGRES_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Client was closed/i;

/** ioredis's messages while it has no connection (offline queue disabled, retries exhausted). */
const REDIS_MESSAGES = /Stream isn't writeable|Connection is closed|MaxRetriesPerRequest|Reached the max retries/i;

/** Files: the disk is full or failing, or the data directory went away (an unmounted volume). */
const FILE_CODES = new Set(['ENOSPC', 'EIO', 'EROFS', 'EDQUOT']);

/**
 * Whether a failure means a backing service is unreachable rather than a defect: such requests
 * are answered 503 with Retry-After, and the next request tries again (the drivers reconnect by
 * themselves), instead of 500. Looks through `cause` chains (services wrap driver errors).
 */
export function unavailableDependency(err: unknown): UnavailableDependency | undefined {
  for (let current = err, depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const found = classify(current);
    if (found) return found;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function classify(err: unknown): UnavailableDependency | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : '';
  const name = err instanceof Error ? err.name : '';
  const isS3 = '$metadata' in err || name === 'TimeoutError';
  if (typeof code === 'string' && POSTGRES_UNAVAILABLE.test(code) && 'severity' in err) {
    return { dependency: 'database', reason: `PostgreSQL ${code}` };
  }
  if (POSTGRES_MESSAGES.test(message)) return { dependency: 'database', reason: message.slice(0, 80) };
  if (REDIS_MESSAGES.test(message) || name === 'MaxRetriesPerRequestError')
    return { dependency: 'Redis', reason: 'no connection' };
  if (typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_FULL')) {
    return { dependency: 'database', reason: code };
  }
  if (isS3) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === undefined || status >= 500 || (typeof code === 'string' && NETWORK_CODES.has(code))) {
      return { dependency: 'tarball storage', reason: typeof code === 'string' ? code : name || `HTTP ${status}` };
    }
  }
  if (typeof code === 'string' && FILE_CODES.has(code)) return { dependency: 'tarball storage', reason: code };
  // A bare socket error reaching a request is PostgreSQL's: the AWS SDK marks its own
  // ($metadata, above), ioredis reports a lost connection in its own words (offline queue off),
  // and uplink failures are answered by the uplink service before they get here.
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return { dependency: 'database', reason: code };
  return undefined;
}

/** Seconds a client is asked to wait before retrying. */
export const UNAVAILABLE_RETRY_AFTER = 5;
