import type { InvalidationBus, TenantId } from '../storage/ports.js';

/**
 * The invalidation bus as this process's package writers (publish, dist-tags, npm's document
 * edits) see it: a write they announce is then rendered ahead of its first read
 * (`PackageReadService.renderWritten`). The writes of other processes reach this one through
 * the bus itself and are rendered by their writer, so each write is rendered once.
 */
export class RenderingBus implements InvalidationBus {
  readonly #bus: InvalidationBus;
  readonly #renderWritten: (tenant: TenantId, name: string) => void;

  constructor(bus: InvalidationBus, renderWritten: (tenant: TenantId, name: string) => void) {
    this.#bus = bus;
    this.#renderWritten = renderWritten;
  }

  async publish(tenant: TenantId, name: string): Promise<void> {
    // After the announcement: this process's cache has dropped what the write changed.
    await this.#bus.publish(tenant, name);
    this.#renderWritten(tenant, name);
  }

  subscribe(listener: (tenant: TenantId, name: string) => void): void {
    this.#bus.subscribe(listener);
  }

  subscribeReset(listener: () => void): void {
    this.#bus.subscribeReset(listener);
  }

  get connected(): boolean {
    return this.#bus.connected;
  }

  get heardUntil(): number | undefined {
    return this.#bus.heardUntil;
  }

  close(): Promise<void> {
    return this.#bus.close();
  }
}
