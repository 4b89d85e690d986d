import type { AccountStores, TenantId, TokenUse } from '../storage/ports.js';

/** A token used again from the same address within this time is not written again. */
const QUIET_MS = 60_000;
/** How often the noted uses are written, in one batch per registry. */
const FLUSH_MS = 5_000;
/** Tokens whose last write is remembered (to skip repeats); beyond it, repeats are written again. */
const MAX_REMEMBERED = 20_000;

interface Written {
  at: number;
  address: string;
}

/**
 * Last use and last address of each token, without a write per request: a request only notes
 * its use in memory (a map lookup, on every request); every few seconds the noted uses are
 * written in one batch per registry, and a token seen again from the same address within a
 * minute is not noted at all. So "last used" is exact to about a minute, at a cost of at most
 * one write per token per minute per node.
 */
export class TokenUseRecorder {
  readonly #registry: Pick<AccountStores, 'tokens'>;
  readonly #now: () => Date;
  readonly #onError: (err: unknown) => void;
  /** tenant → hash → the latest use not written yet. */
  readonly #pending = new Map<TenantId, Map<string, TokenUse>>();
  readonly #written = new Map<string, Written>();
  #timer: NodeJS.Timeout | undefined;

  constructor(registry: Pick<AccountStores, 'tokens'>, now: () => Date, onError: (err: unknown) => void) {
    this.#registry = registry;
    this.#now = now;
    this.#onError = onError;
  }

  note(tenant: TenantId, hash: string, address: string): void {
    const key = `${tenant}\0${hash}`;
    const now = this.#now();
    const ms = now.getTime();
    const written = this.#written.get(key);
    if (written !== undefined && written.address === address && ms - written.at < QUIET_MS) return;
    if (this.#written.size >= MAX_REMEMBERED) this.#written.clear();
    this.#written.set(key, { at: ms, address });
    let uses = this.#pending.get(tenant);
    if (uses === undefined) this.#pending.set(tenant, (uses = new Map<string, TokenUse>()));
    uses.set(hash, { hash, at: now.toISOString(), address });
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes every noted use now (tests, and the server's close). */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batches = [...this.#pending];
    this.#pending.clear();
    for (const [tenant, uses] of batches) {
      try {
        await this.#registry.tokens.recordUses(tenant, [...uses.values()]);
      } catch (err) {
        // A last-use time is not worth failing anything for; the next use notes it again.
        for (const hash of uses.keys()) this.#written.delete(`${tenant}\0${hash}`);
        this.#onError(err);
      }
    }
  }
}
