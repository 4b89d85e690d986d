import { ProtocolError } from '@pkg/protocol';
import type { CounterStore } from '../storage/counter-store.js';
import type { TenantId } from '../storage/ports.js';

/**
 * Slows password guessing: failed logins are counted per account and per client IP; once either
 * reaches the limit within the window, logins for that account (or from that IP) get 429 until
 * the window ends, right password or not. A success clears the account's count, not the IP's,
 * so a guesser cannot reset its own count by logging in to an account it owns.
 */
export class LoginThrottle {
  readonly #counters: CounterStore;
  readonly #limit: number;
  readonly #windowSeconds: number;

  constructor(counters: CounterStore, limit: number, windowSeconds: number) {
    this.#counters = counters;
    this.#limit = limit;
    this.#windowSeconds = windowSeconds;
  }

  /** 429 RATE_LIMIT_EXCEEDED when the account or the IP has used up its failures. */
  async check(tenant: TenantId, user: string, ip: string): Promise<void> {
    if (this.#limit <= 0) return;
    const counts = await Promise.all([
      this.#counters.peek(accountKey(tenant, user), this.#windowSeconds),
      this.#counters.peek(ipKey(tenant, ip), this.#windowSeconds),
    ]);
    const blocked = counts.filter((c) => c !== undefined && c.count >= this.#limit);
    if (blocked.length === 0) return;
    const resetAt = Math.max(...blocked.map((c) => c!.resetAt));
    const retryAfter = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    throw new ProtocolError(
      'RATE_LIMIT_EXCEEDED',
      `login limit of ${this.#limit} failed attempts per ${this.#windowSeconds} s exceeded; retry in ${retryAfter} s`,
      { 'Retry-After': String(retryAfter) },
    );
  }

  async recordFailure(tenant: TenantId, user: string, ip: string): Promise<void> {
    if (this.#limit <= 0) return;
    await Promise.all([
      this.#counters.increment(accountKey(tenant, user), this.#windowSeconds),
      this.#counters.increment(ipKey(tenant, ip), this.#windowSeconds),
    ]);
  }

  async recordSuccess(tenant: TenantId, user: string): Promise<void> {
    if (this.#limit <= 0) return;
    await this.#counters.reset(accountKey(tenant, user), this.#windowSeconds);
  }
}

function accountKey(tenant: TenantId, user: string): string {
  return `login-user\0${tenant}\0${user}`;
}

function ipKey(tenant: TenantId, ip: string): string {
  return `login-ip\0${tenant}\0${ip}`;
}
