/** Whether requests go to an upstream: `open` while it is considered down. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * A circuit breaker for one uplink. After `threshold` failures in a row it opens: for `openMs`
 * nobody waits for a timeout from an upstream that is down, cached documents are served stale
 * at once and the rest get 503. Then one request probes (half-open); its success closes the
 * circuit, its failure opens it again.
 */
export class CircuitBreaker {
  #failures = 0;
  #openUntil = 0;
  /** When the half-open probe went out; a probe that never reports back frees the slot after openMs. */
  #probeAt: number | undefined;

  constructor(
    readonly threshold = 3,
    readonly openMs = 30_000,
  ) {}

  state(now: number): CircuitState {
    if (this.#failures < this.threshold) return 'closed';
    return now < this.#openUntil ? 'open' : 'half-open';
  }

  /** Failures in a row so far. */
  get failures(): number {
    return this.#failures;
  }

  /** Whether a request may go upstream now (in half-open, only one at a time). */
  allow(now: number): boolean {
    const state = this.state(now);
    if (state === 'closed') return true;
    if (state === 'open' || (this.#probeAt !== undefined && now - this.#probeAt < this.openMs)) return false;
    this.#probeAt = now;
    return true;
  }

  success(): void {
    this.#failures = 0;
    this.#openUntil = 0;
    this.#probeAt = undefined;
  }

  failure(now: number): void {
    this.#failures++;
    this.#probeAt = undefined;
    if (this.#failures >= this.threshold) this.#openUntil = now + this.openMs;
  }

  /** Seconds a client should wait before trying again. */
  retryAfterSeconds(now: number, fallback: number): number {
    return this.state(now) === 'open' ? Math.max(1, Math.ceil((this.#openUntil - now) / 1000)) : fallback;
  }
}
