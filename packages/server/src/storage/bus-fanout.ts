import { randomBytes } from 'node:crypto';
import type { TenantId } from './ports.js';

/**
 * The part every shared-channel bus has in common: local listeners, the wire format of a
 * message, and knowing its own messages (they were delivered locally when published).
 */
export class BusFanout {
  /** Random per process: a message carrying it came from here. */
  readonly origin = randomBytes(8).toString('hex');
  readonly #changed: ((tenant: TenantId, name: string) => void)[] = [];
  readonly #reset: (() => void)[] = [];

  onChange(listener: (tenant: TenantId, name: string) => void): void {
    this.#changed.push(listener);
  }

  onReset(listener: () => void): void {
    this.#reset.push(listener);
  }

  // A failing listener must not keep the others from hearing, nor fail the write that published.
  changed(tenant: TenantId, name: string): void {
    for (const listener of this.#changed) {
      try {
        listener(tenant, name);
      } catch {
        // see above
      }
    }
  }

  reset(): void {
    for (const listener of this.#reset) {
      try {
        listener();
      } catch {
        // see changed()
      }
    }
  }

  encode(tenant: TenantId, name: string): string {
    return JSON.stringify({ o: this.origin, t: tenant, n: name });
  }

  /** Delivers a message from the channel to local listeners, unless it is ours or malformed. */
  receive(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const { o, t, n } = parsed as Record<string, unknown>;
    if (typeof t !== 'string' || typeof n !== 'string' || o === this.origin) return;
    this.changed(t, n);
  }
}
