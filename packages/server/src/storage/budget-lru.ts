/**
 * A map bounded by a total weight (e.g. the number of search hits held), not by entry count, so
 * a few large pages cannot hold an unbounded amount of memory. Eviction is second-chance (clock),
 * an approximation of least-recently-used: a read only marks the entry, and an entry read since
 * eviction last passed it moves to the back once instead of going. (Deleting and re-adding a key
 * of a large Map on every read, the exact-LRU idiom, makes V8 walk a chain of the key's deleted
 * copies: each read then costs time in proportion to the map's size.)
 */
export class BudgetLru<V> {
  readonly #entries = new Map<string, { value: V; weight: number; referenced: boolean }>();
  readonly #budget: number;
  #used = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    entry.referenced = true;
    return entry.value;
  }

  set(key: string, value: V, weight: number): void {
    if (weight > this.#budget) return;
    this.delete(key);
    this.#entries.set(key, { value, weight, referenced: false });
    this.#used += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#used <= this.#budget) break;
      if (entry.referenced) {
        entry.referenced = false;
        this.#entries.delete(oldest);
        this.#entries.set(oldest, entry);
        continue;
      }
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
