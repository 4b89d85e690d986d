/**
 * How often each key was asked for lately, approximately, in a fixed amount of memory: a
 * count-min sketch of 4-bit-range counters (TinyLFU's, as in Caffeine). Four rows, each
 * counter at most 15; after `sampleSize` increments every counter is halved, so the counts
 * follow what is popular now rather than what was popular since start. A key's estimate is
 * never below its true recent count and is above it only where other keys collide with it in
 * every row.
 */
export class FrequencySketch {
  readonly #table: Uint8Array;
  readonly #mask: number;
  readonly #sampleSize: number;
  #additions = 0;

  /** `expectedKeys`: about how many keys the cache holds at once (the table gets 4 bytes a key, at least 4 KiB). */
  constructor(expectedKeys: number) {
    const width = 2 ** Math.max(10, Math.ceil(Math.log2(Math.max(1, expectedKeys))));
    this.#table = new Uint8Array(width * ROWS);
    this.#mask = width - 1;
    this.#sampleSize = width * 10;
  }

  /** Bytes the sketch holds (fixed at construction). */
  get bytes(): number {
    return this.#table.byteLength;
  }

  /** One more request for `key`. */
  increment(key: string): void {
    this.incrementHash(hashOf(key));
  }

  /** One more request for the key of `h` (hashOf): a cached entry keeps its key's hash. */
  incrementHash(h: number): void {
    const table = this.#table;
    const width = this.#mask + 1;
    // Conservative update: only the smallest counters grow, which keeps collisions from inflating a key.
    const min = this.#frequencyOfHash(h);
    if (min >= MAX_COUNT) return;
    for (let row = 0; row < ROWS; row++) {
      const at = row * width + indexOf(h, row, this.#mask);
      if (table[at] === min) table[at] = min + 1;
    }
    if (++this.#additions >= this.#sampleSize) this.#age();
  }

  /** The estimated recent requests of `key` (0–15). */
  frequency(key: string): number {
    return this.#frequencyOfHash(hashOf(key));
  }

  /** The same for the key of `h` (hashOf). */
  frequencyOfHash(h: number): number {
    return this.#frequencyOfHash(h);
  }

  #frequencyOfHash(h: number): number {
    const width = this.#mask + 1;
    let min = MAX_COUNT;
    for (let row = 0; row < ROWS; row++) {
      const count = this.#table[row * width + indexOf(h, row, this.#mask)]!;
      if (count < min) min = count;
    }
    return min;
  }

  #age(): void {
    const table = this.#table;
    for (let i = 0; i < table.length; i++) table[i] = table[i]! >>> 1;
    this.#additions = Math.floor(this.#additions / 2);
  }
}

const ROWS = 4;
const MAX_COUNT = 15;
const SEEDS = [0x9e3779b1, 0x85ebca77, 0xc2b2ae3d, 0x27d4eb2f] as const;

/** FNV-1a over the key's UTF-16 code units. */
export function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The counter of `h` in `row`: the hash remixed with the row's seed. */
function indexOf(h: number, row: number, mask: number): number {
  let x = Math.imul(h ^ SEEDS[row]!, 0x5bd1e995);
  x ^= x >>> 15;
  return x & mask;
}
