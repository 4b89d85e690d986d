/**
 * A least-recently-used map bounded by a total weight (e.g. the number of search hits held),
 * not by entry count, so a few large pages cannot hold an unbounded amount of memory.
 */
export class BudgetLru<V> {
  readonly #entries = new Map<string, { value: V; weight: number }>();
  readonly #budget: number;
  #used = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Map keeps insertion order: re-inserting makes this the most recently used entry.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, weight: number): void {
    if (weight > this.#budget) return;
    this.delete(key);
    this.#entries.set(key, { value, weight });
    this.#used += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#used <= this.#budget) break;
      this.#entries.delete(oldest);
      this.#used -= entry.weight;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#used -= entry.weight;
  }

  clear(): void {
    this.#entries.clear();
    this.#used = 0;
  }

  get size(): number {
    return this.#entries.size;
  }
}
