import type { AuditTrail } from './audit-trail.js';

const HOUR_MS = 3_600_000;

export interface AuditRetentionLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Keeps the audit log to `auditRetentionDays`: removes older entries (and finished webhook
 * deliveries as old) once the server listens, then every hour. On PostgreSQL every node runs it;
 * a second node finds nothing left to remove.
 */
export class AuditRetention {
  readonly #trail: AuditTrail;
  readonly #days: number;
  readonly #log: AuditRetentionLog;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(trail: AuditTrail, days: number, log: AuditRetentionLog) {
    this.#trail = trail;
    this.#days = days;
    this.#log = log;
  }

  start(): void {
    if (this.#timer) return;
    void this.run();
    this.#timer = setInterval(() => void this.run(), HOUR_MS);
    this.#timer.unref();
  }

  /** One pruning pass, after any still running. */
  run(): Promise<void> {
    this.#running = this.#running.then(async () => {
      try {
        const removed = await this.#trail.prune(this.#days);
        if (removed > 0)
          this.#log.info({ removed, auditRetentionDays: this.#days }, 'removed audit entries past their retention');
      } catch (err) {
        this.#log.error({ err }, 'pruning the audit log failed');
      }
    });
    return this.#running;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}
