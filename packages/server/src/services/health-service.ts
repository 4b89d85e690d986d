import type { ServerDeps } from '../deps.js';
import type { UplinkHealth } from '../uplinks/uplink-service.js';

export interface CheckResult {
  ok: boolean;
  /** Round trip in milliseconds. */
  ms: number;
  /** Why it failed (a short message, never a connection string). */
  error?: string;
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
      timed(() => metadata.ping()),
      timed(() => blobs.ping()),
      redis ? timed(() => redis.ping()) : Promise.resolve(undefined),
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

async function timed(probe: () => Promise<void>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, ms: elapsed(started) };
  } catch (err) {
    return { ok: false, ms: elapsed(started), error: describe(err) };
  } finally {
    clearTimeout(timer);
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/** A short reason; URLs in driver messages lose their credentials. */
function describe(err: unknown): string {
  // File system errors name paths: their code says enough.
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  const message = err instanceof Error ? err.message || err.name : String(err);
  return message.replace(/\/\/[^@/\s]*@/g, '//***@').slice(0, 200);
}
