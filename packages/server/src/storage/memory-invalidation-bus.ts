import type { InvalidationBus, TenantId } from './ports.js';

/** The embedded default's bus: one process, so only local subscribers hear of a change. */
export class LocalInvalidationBus implements InvalidationBus {
  readonly #listeners: ((tenant: TenantId, name: string) => void)[] = [];

  async publish(tenant: TenantId, name: string): Promise<void> {
    for (const listener of this.#listeners) listener(tenant, name);
  }

  subscribe(listener: (tenant: TenantId, name: string) => void): void {
    this.#listeners.push(listener);
  }

  async close(): Promise<void> {}
}
