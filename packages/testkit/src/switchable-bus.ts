import type { InvalidationBus, TenantId } from '@pkg/server';

/**
 * An invalidation bus whose connection the test controls, standing in for Redis or
 * LISTEN/NOTIFY: `connected` is the test's to set, `reset()` plays a reconnect, and
 * `heardUntil` plays the last read of the database's log of writes.
 */
export class SwitchableBus implements InvalidationBus {
  connected = true;
  heardUntil: number | undefined;
  readonly #changed: ((tenant: TenantId, name: string) => void)[] = [];
  readonly #reset: (() => void)[] = [];
  async publish(tenant: TenantId, name: string): Promise<void> {
    for (const listener of this.#changed) listener(tenant, name);
  }
  subscribe(listener: (tenant: TenantId, name: string) => void): void {
    this.#changed.push(listener);
  }
  subscribeReset(listener: () => void): void {
    this.#reset.push(listener);
  }
  reset(): void {
    for (const listener of this.#reset) listener();
  }
  async close(): Promise<void> {}
}
