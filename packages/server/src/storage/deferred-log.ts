import type { StorageLog } from './storage-log.js';

/**
 * A log for storage components, which exist before the server's logger does: lines are kept
 * until `attach` hands them (and every later one) to the real logger.
 */
export class DeferredLog implements StorageLog {
  #target: StorageLog | undefined;
  readonly #pending: ['info' | 'warn', object, string][] = [];

  info(details: object, message: string): void {
    if (this.#target) this.#target.info(details, message);
    else this.#pending.push(['info', details, message]);
  }

  warn(details: object, message: string): void {
    if (this.#target) this.#target.warn(details, message);
    else this.#pending.push(['warn', details, message]);
  }

  attach(target: StorageLog): void {
    this.#target = target;
    for (const [level, details, message] of this.#pending.splice(0)) target[level](details, message);
  }
}
