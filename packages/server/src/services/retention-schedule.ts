import type { RetentionSchedule } from '../config/retention-rules.js';
import { GLOBAL_TENANT, type AccountStores, type TenantId } from '../storage/ports.js';
import type { RetentionRemoval, RetentionService } from './retention.js';

export interface RetentionLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Applies the `retention` setting from inside the server: once it listens, then every
 * `everyHours`. Inside the server because the embedded default's document cache hears only its
 * own process's writes; on PostgreSQL every node runs it, and each package is planned again
 * inside its write, so a second node finds nothing left to remove.
 */
export class RetentionScheduler {
  readonly #service: RetentionService;
  readonly #registry: AccountStores;
  readonly #schedule: RetentionSchedule;
  readonly #log: RetentionLog;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  readonly #record: (removals: RetentionRemoval[]) => Promise<void>;

  /** `record` writes each run's removals to the audit log. */
  constructor(
    service: RetentionService,
    registry: AccountStores,
    schedule: RetentionSchedule,
    log: RetentionLog,
    record: (removals: RetentionRemoval[]) => Promise<void> = async () => undefined,
  ) {
    this.#record = record;
    this.#service = service;
    this.#registry = registry;
    this.#schedule = schedule;
    this.#log = log;
  }

  start(): void {
    this.#run();
    this.#timer = setInterval(() => this.#run(), this.#schedule.everyHours * 3_600_000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  #run(): void {
    this.#running = this.#running.then(async () => {
      const removed: RetentionRemoval[] = [];
      try {
        const tenants: TenantId[] = [GLOBAL_TENANT, ...(await this.#registry.tenants.list()).map((t) => t.name)];
        for (const tenant of tenants) {
          if (this.#stopped) break;
          await this.#service.apply(tenant, this.#schedule, (removal) => {
            removed.push(removal);
            this.#log.info(
              { tenant: removal.tenant, package: removal.name, version: removal.version, reason: removal.reason },
              'retention removed a pre-release',
            );
          });
        }
        await this.#record(removed);
        this.#log.info({ removed: removed.length }, 'retention run finished');
      } catch (err) {
        this.#log.error({ err }, 'retention run failed');
      }
    });
  }
}
