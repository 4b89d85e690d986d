import { ProtocolError } from '@pkg/protocol';
import type { CounterState, CounterStore } from '../storage/counter-store.js';
import type { TenantId } from '../storage/ports.js';
import { singleIncarnation, type TenantScopeOf } from './tenant-scope.js';

export interface LoginThrottleLimits {
  /** Failures of one account from one client address; 0 disables. */
  perAccountAndAddress: number;
  /** Failures from one client address, whatever the accounts; 0 disables. */
  perAddress: number;
  windowSeconds: number;
}

/**
 * Slows password guessing: failed logins are counted per (account, client address) pair and,
 * with a much higher threshold, per client address. Past either, logins of that account from
 * that address (or every login from that address) get 429 until the window ends, right
 * password or not. Counting the pair rather than the account alone means nobody can lock an
 * account out from elsewhere, and a much higher threshold per address means one office behind
 * a NAT, or one mistyped script, does not lock out everyone else there. A success clears the
 * pair's count, not the address's, so a guesser cannot reset its count by logging in to an
 * account it owns.
 */
export class LoginThrottle {
  readonly #counters: CounterStore;
  readonly #limits: LoginThrottleLimits;

  readonly #scopeOf: TenantScopeOf;

  constructor(counters: CounterStore, limits: LoginThrottleLimits, scopeOf: TenantScopeOf = singleIncarnation) {
    this.#counters = counters;
    this.#limits = limits;
    this.#scopeOf = scopeOf;
  }

  /** 429 RATE_LIMIT_EXCEEDED when the pair or the address has used up its failures. */
  async check(tenant: TenantId, user: string, ip: string): Promise<void> {
    const { perAccountAndAddress, perAddress, windowSeconds } = this.#limits;
    const [pair, address] = await Promise.all([
      perAccountAndAddress > 0 ? this.#counters.peek(pairKey(this.#scopeOf(tenant), user, ip), windowSeconds) : undefined,
      perAddress > 0 ? this.#counters.peek(addressKey(this.#scopeOf(tenant), ip), windowSeconds) : undefined,
    ]);
    if (reached(address, perAddress)) {
      throw throttled(address!, `login limit of ${perAddress} failed attempts per client address per ${windowSeconds} s`);
    }
    if (reached(pair, perAccountAndAddress)) {
      throw throttled(pair!, `login limit of ${perAccountAndAddress} failed attempts per account per ${windowSeconds} s`);
    }
  }

  async recordFailure(tenant: TenantId, user: string, ip: string): Promise<void> {
    const { perAccountAndAddress, perAddress, windowSeconds } = this.#limits;
    await Promise.all([
      perAccountAndAddress > 0 ? this.#counters.increment(pairKey(this.#scopeOf(tenant), user, ip), windowSeconds) : undefined,
      perAddress > 0 ? this.#counters.increment(addressKey(this.#scopeOf(tenant), ip), windowSeconds) : undefined,
    ]);
  }

  async recordSuccess(tenant: TenantId, user: string, ip: string): Promise<void> {
    if (this.#limits.perAccountAndAddress <= 0) return;
    await this.#counters.reset(pairKey(this.#scopeOf(tenant), user, ip), this.#limits.windowSeconds);
  }
}

function reached(counter: CounterState | undefined, limit: number): boolean {
  return limit > 0 && counter !== undefined && counter.count >= limit;
}

function throttled(counter: CounterState, limit: string): ProtocolError {
  const retryAfter = Math.max(1, Math.ceil((counter.resetAt - Date.now()) / 1000));
  return new ProtocolError('RATE_LIMIT_EXCEEDED', `${limit} exceeded; retry in ${retryAfter} s`, {
    'Retry-After': String(retryAfter),
  });
}

function pairKey(tenant: string, user: string, ip: string): string {
  return `login-user-ip\0${tenant}\0${user}\0${ip}`;
}

function addressKey(tenant: string, ip: string): string {
  return `login-ip\0${tenant}\0${ip}`;
}
