import type { ServerDeps } from '../deps.js';
import type { UplinkHealth } from './uplinks/uplink-service.js';

export interface CheckResult {
  ok: boolean;
  /** `up`, or `down` when the probe failed or did not answer in time. */
  state: 'up' | 'down';
  /** Round trip in milliseconds. */
  ms: number;
  /** Why it failed, in an operator's words (never a path or a connection string). */
  error?: string;
  /** The driver's or system's code of the failure, when it has one (ECONNREFUSED, 57P01, …). */
  code?: string;
}

export interface HealthReport {
  /** `ok`; `degraded` when only Redis is down (the node still serves); `unavailable` otherwise. */
  status: 'ok' | 'degraded' | 'unavailable';
  checks: { database: CheckResult; storage: CheckResult; redis?: CheckResult };
  /**
   * Each uplink's circuit (`open` while its upstream is considered down). Informational: a node
   * whose upstream is down still serves what it has cached, so this never makes it unready.
   */
  uplinks?: UplinkHealth[];
}

const CHECK_TIMEOUT_MS = 2000;

/** What HealthService reaches of the server's deps. */
export type HealthServiceDeps = Pick<ServerDeps, 'database' | 'blobs' | 'redis'>;

/**
 * Readiness for load balancers: can this node reach its database and tarball storage (and
 * Redis, when configured)? Redis down leaves the node serving (limits count per node, caches
 * are bypassed), so it only degrades the answer; database or storage down makes it unready.
 */
export class HealthService {
  readonly #deps: HealthServiceDeps;
  readonly #uplinks: { health(): Promise<UplinkHealth[]> } | undefined;

  constructor(deps: HealthServiceDeps, uplinks?: { health(): Promise<UplinkHealth[]> }) {
    this.#deps = deps;
    this.#uplinks = uplinks;
  }

  async check(): Promise<HealthReport> {
    const { blobs, redis } = this.#deps;
    const metadata = this.#deps.database;
    const [database, storage, redisCheck, uplinks = []] = await Promise.all([
      timed('database', () => metadata.ping()),
      timed('tarball storage', () => blobs.ping()),
      redis ? timed('Redis', () => redis.ping()) : Promise.resolve(undefined),
      this.#uplinks?.health(),
    ]);
    const status = !database.ok || !storage.ok ? 'unavailable' : redisCheck && !redisCheck.ok ? 'degraded' : 'ok';
    return {
      status,
      checks: { database, storage, ...(redisCheck ? { redis: redisCheck } : {}) },
      ...(uplinks.length > 0 ? { uplinks } : {}),
    };
  }
}

async function timed(what: string, probe: () => Promise<void>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new ProbeTimeout()), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, state: 'up', ms: elapsed(started) };
  } catch (err) {
    const code = codeOf(err);
    return { ok: false, state: 'down', ms: elapsed(started), error: `${what}: ${reasonOf(err)}`, ...(code ? { code } : {}) };
  } finally {
    clearTimeout(timer);
  }
}

class ProbeTimeout extends Error {
  constructor() {
    super(`no answer within ${CHECK_TIMEOUT_MS} ms`);
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code ?? (err as { name?: unknown })?.name;
  return typeof code === 'string' && /^([A-Z][A-Z0-9_]+|[0-9A-Z]{5}|[A-Z][A-Za-z]+)$/.test(code) && code !== 'Error'
    ? code
    : undefined;
}

/** Driver and system failures, said the way an operator would look for them. */
const REASONS: [test: RegExp, reason: string][] = [
  [/^ECONNREFUSED$/, 'connection refused: the service is down or not listening at the configured address'],
  [/^(ENOTFOUND|EAI_AGAIN)$/, 'the host name does not resolve'],
  [/^(ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/, 'not reachable over the network'],
  [/^(ECONNRESET|EPIPE)$/, 'the connection was dropped'],
  [/^ENOENT$/, 'the directory is missing (an unmounted volume?)'],
  [/^(EACCES|EPERM)$/, 'permission denied'],
  [/^(ENOSPC|EDQUOT)$/, 'the disk is full'],
  [/^EROFS$/, 'the file system is read-only'],
  [/^EIO$/, 'input/output error: the disk is failing'],
  [/^57P0[123]$/, 'PostgreSQL is shutting down or starting up'],
  [/^53300$/, 'PostgreSQL has no connection slot left'],
  [/^(28P01|28000)$/, 'PostgreSQL refused the credentials'],
  [/^3D000$/, 'the database does not exist'],
  [/^NoSuchBucket$/, 'the bucket does not exist'],
  [/^(AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|Forbidden)$/, 'access denied: check the credentials'],
  [/^SQLITE_BUSY$/, 'the database file is locked by another process'],
  [/^SQLITE_/, 'the database file cannot be used'],
];

const MESSAGES: [test: RegExp, reason: string][] = [
  [
    /Stream isn't writeable|Connection is closed|MaxRetriesPerRequest|enableOfflineQueue/i,
    'not connected (reconnecting in the background)',
  ],
  [/Connection terminated|not queryable|Client was closed/i, 'the connection was dropped'],
  [/timeout exceeded when trying to connect/i, 'no connection could be had in time'],
  [/database connection is not open/i, 'the database is closed'],
];

function reasonOf(err: unknown): string {
  if (err instanceof ProbeTimeout) return err.message;
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  for (const [test, reason] of MESSAGES) if (test.test(message)) return reason;
  if (code) for (const [test, reason] of REASONS) if (test.test(code)) return reason;
  // File system errors name paths: their code says enough.
  if (code && /^E[A-Z]+$/.test(code)) return code;
  return (message || 'failed').replace(/\/\/[^@/\s]*@/g, '//***@').slice(0, 200);
}
