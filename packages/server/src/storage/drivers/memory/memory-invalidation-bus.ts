import { BusFanout } from '../../bus-fanout.js';
import type { InvalidationBus, TenantId } from '../../ports.js';

/** The embedded default's bus: one process, so only local subscribers hear of a change. */
export class LocalInvalidationBus implements InvalidationBus {
  readonly #fanout = new BusFanout();
  readonly connected = true;

  async publish(tenant: TenantId, name: string): Promise<void> {
    this.#fanout.changed(tenant, name);
  }

  subscribe(listener: (tenant: TenantId, name: string) => void): void {
    this.#fanout.onChange(listener);
  }

  /** Nothing is ever missed within one process. */
  subscribeReset(): void {}

  async close(): Promise<void> {}
}
