import type { InvalidationBus, TenantId } from '../storage/ports.js';
import type { EncodedListener, Representation } from './representation.js';
import { singleIncarnation, type TenantScopeOf } from './tenant-scope.js';
import { FrequencySketch, hashOf } from './frequency-sketch.js';

/** What the cache holds per key: a serialized form, or an object, or both. */
export interface CachedValue<T> {
  /** The serialized form; absent in an entry that holds an object only (a package's file index). */
  representation?: Representation | undefined;
  /**
   * An object the cache keeps beside the bytes, counted against the bound; undefined in an entry
   * of bytes only. Shared between requests: never mutate it.
   */
  value: T | undefined;
  /**
   * About how many bytes the JSON of `value` takes, to count it by when kept; without it, the
   * representation's size.
   */
  jsonBytes?: number;
}

/** The bytes the cache holds, and what to do when they pass the bound. */
class Budget {
  bytes = 0;
  constructor(readonly onGrown: () => void) {}

  grow(bytes: number): void {
    this.bytes += bytes;
    this.onGrown();
  }
}

/**
 * One cached variant. It is its representation's encoded-listener, rather than a closure per
 * entry: with thousands of small documents cached, a closure and its context cost more than
 * the document's compressed bytes.
 */
class Entry implements EncodedListener {
  /** Read since eviction last passed it: it gets a second chance (see #evict). */
  referenced = false;
  /** False once evicted or invalidated: a compression finishing later adds nothing. */
  live = true;

  constructor(
    readonly pkg: string,
    /** Its key's hash in the frequency sketch: a hit counts without hashing the key again. */
    readonly keyHash: number,
    /** null: the package does not exist (a 404 answered from memory until a write creates it). */
    readonly cached: CachedValue<unknown> | null,
    public size: number,
    /** The clock when its build started. */
    readonly builtAt: number,
    readonly budget: Budget,
  ) {}

  /** Compressed forms are made on first request and count against the bound from then on. */
  encoded(bytes: number): void {
    if (!this.live) return;
    this.size += bytes;
    this.budget.grow(bytes);
  }
}

export interface DocumentCacheOptions {
  /**
   * How far behind the store an entry may be. Set when other nodes write to the same store: the
   * bus tells at once, and this bounds staleness even if a message is lost without a disconnect.
   * An entry is served while it was built, or the bus last read the store's log of writes
   * (`InvalidationBus.heardUntil`), less than this long ago; otherwise it is built again.
   */
  maxAgeMs?: number;
  /** Milliseconds on a monotonic clock, the bus's `heardUntil` clock (tests move it). */
  clock?: () => number;
  /** The key of a tenant's entries: its incarnation too (TenantService.scopeOf). */
  scopeOf?: TenantScopeOf;
}

interface Flight {
  pending: Promise<CachedValue<unknown> | undefined>;
  /** Set by an invalidation (or clear) after the build started: its result is not stored. */
  stale: boolean;
}

/** Room counted for a remembered absence: its key and the map entry. */
const ABSENT_SIZE = 256;

/** Parsed objects take a few times the room of their JSON; count them at this factor. */
const OBJECT_OVERHEAD = 3;

/**
 * Room counted for each stored document besides its bytes: the entry, its key, the
 * representation and its buffers' bookkeeping (about 900 bytes, measured in a heap snapshot with
 * 10,000 abbreviated documents cached). Most documents are a kilobyte or two, so without it the
 * bound would be off by half.
 */
export const ENTRY_OVERHEAD = 1024;

/** Bytes of a typical entry (a small abbreviated document and its gzip): sizes the frequency sketch. */
const TYPICAL_ENTRY = 2048;

/**
 * Pre-serialized package documents, keyed by package and variant (form, tarball base URL),
 * bounded by bytes with second-chance (approximately least-recently-used) eviction and
 * TinyLFU admission: once the cache is full, a new entry is kept only if it was asked for more
 * often lately than the entry it would evict (a fixed-size frequency sketch counts every
 * lookup). A read of more documents than fit, in turn (an install of a large tree, a crawler),
 * then leaves the documents that were in the cache there instead of flushing them all, and
 * itself hits the share that fits rather than nothing. Every write to a package is announced on
 * the invalidation bus; the cache then drops all variants of that package. A build that started
 * before an invalidation is not stored, so a stale document never sticks. Only packages with a
 * build in flight are tracked besides the entries, so the bookkeeping does not grow with the
 * registry. Shared by several nodes, the cache is bypassed while the bus cannot hear the others,
 * emptied when the bus may have missed messages, and (with `maxAgeMs`) never further behind the
 * store than that.
 */
export class DocumentCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  /** Keys of each package's variants: a few per package, so an array is smaller than a Set. */
  readonly #keysByPackage = new Map<string, string[]>();
  /** Builds in flight by key; an invalidation marks them stale and forgets them. */
  readonly #inflight = new Map<string, Flight>();
  readonly #flightsByPackage = new Map<string, Set<string>>();
  readonly #bus: InvalidationBus;
  readonly #maxAgeMs: number;
  readonly #clock: () => number;
  readonly #scopeOf: TenantScopeOf;
  readonly #budget = new Budget(() => this.#evict());
  readonly #sketch: FrequencySketch;
  #hits = 0;
  #misses = 0;
  #rejected = 0;

  constructor(bus: InvalidationBus, maxBytes: number, options: DocumentCacheOptions = {}) {
    this.#maxBytes = maxBytes;
    this.#bus = bus;
    this.#maxAgeMs = options.maxAgeMs ?? Infinity;
    this.#clock = options.clock ?? (() => performance.now());
    this.#scopeOf = options.scopeOf ?? singleIncarnation;
    this.#sketch = new FrequencySketch(maxBytes / TYPICAL_ENTRY);
    bus.subscribe((tenant, name) => this.invalidate(tenant, name));
    bus.subscribeReset(() => this.clear());
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#budget.bytes };
  }

  /**
   * Lookups answered from memory and built anew, and builds not kept because what they would
   * have evicted was asked for more often, since start.
   */
  get stats(): { hits: number; misses: number; rejected: number } {
    return { hits: this.#hits, misses: this.#misses, rejected: this.#rejected };
  }

  /**
   * The cached value of (package, variant), or what `build` returns (cached for next time).
   * Concurrent misses of one key share one build. `undefined` (no such package) is cached too,
   * so repeated 404s do not read the store; the write that creates the package drops it.
   */
  async get<T>(
    tenant: TenantId,
    name: string,
    variant: string,
    build: () => Promise<CachedValue<T> | undefined>,
  ): Promise<CachedValue<T> | undefined> {
    const pkg = packageKey(this.#scopeOf(tenant), name);
    const key = `${pkg}\0${variant}`;
    const keyHash = hashOf(key);
    this.#sketch.incrementHash(keyHash);
    if (!this.#bus.connected) {
      // Deaf to other nodes' writes: whatever is in memory may be stale.
      this.#misses++;
      return build();
    }
    const hit = this.#hit(key);
    if (hit !== undefined) return (hit.cached ?? undefined) as CachedValue<T> | undefined;
    this.#misses++;
    let flight = this.#inflight.get(key);
    if (!flight) {
      const builtAt = this.#clock();
      const started: Flight = { stale: false, pending: undefined! };
      started.pending = build().then(
        (built) => {
          if (!started.stale && this.#bus.connected) this.#store(pkg, key, keyHash, built ?? null, builtAt);
          this.#land(pkg, key, started);
          return built;
        },
        (err: unknown) => {
          this.#land(pkg, key, started);
          throw err;
        },
      );
      flight = started;
      this.#inflight.set(key, flight);
      let keys = this.#flightsByPackage.get(pkg);
      if (!keys) this.#flightsByPackage.set(pkg, (keys = new Set()));
      keys.add(key);
    }
    return (await flight.pending) as CachedValue<T> | undefined;
  }

  /**
   * What the cache holds for (package, variant) right now, without building: the value, null for
   * a package known not to exist, undefined when there is nothing usable (then call get).
   */
  peek<T>(tenant: TenantId, name: string, variant: string): CachedValue<T> | null | undefined {
    if (!this.#bus.connected) return undefined;
    const key = `${packageKey(this.#scopeOf(tenant), name)}\0${variant}`;
    const hit = this.#hit(key);
    if (hit === undefined) return undefined;
    // Counted here only when found: a miss goes on to `get`, which counts it.
    this.#sketch.incrementHash(hit.keyHash);
    return hit.cached as CachedValue<T> | null | undefined;
  }

  #hit(key: string): Entry | undefined {
    const hit = this.#entries.get(key);
    if (hit === undefined || (this.#maxAgeMs !== Infinity && this.#tooOld(hit))) return undefined;
    // Marked, not moved: deleting and re-adding one key of a large Map on every hit makes V8
    // walk a chain of its deleted copies, costing time in proportion to the cache's size.
    hit.referenced = true;
    this.#hits++;
    return hit;
  }

  #tooOld(entry: Entry): boolean {
    const heardUntil = this.#bus.heardUntil;
    const current = heardUntil !== undefined && heardUntil > entry.builtAt ? heardUntil : entry.builtAt;
    return this.#clock() - current > this.#maxAgeMs;
  }

  /** Drops every cached variant of a package. */
  invalidate(tenant: TenantId, name: string): void {
    const pkg = packageKey(this.#scopeOf(tenant), name);
    // Builds already under way may have read the old document: they answer their own callers
    // but are not stored, and the next request starts a fresh build.
    for (const key of this.#flightsByPackage.get(pkg) ?? []) this.#forgetFlight(key);
    this.#flightsByPackage.delete(pkg);
    const keys = this.#keysByPackage.get(pkg);
    // Forgotten first: removing each key then finds no list to edit.
    this.#keysByPackage.delete(pkg);
    for (const key of keys ?? []) this.#remove(key);
  }

  /** Drops everything (the bus may have missed messages). */
  clear(): void {
    for (const key of [...this.#inflight.keys()]) this.#forgetFlight(key);
    this.#flightsByPackage.clear();
    for (const entry of this.#entries.values()) entry.live = false;
    this.#entries.clear();
    this.#keysByPackage.clear();
    this.#budget.bytes = 0;
  }

  #forgetFlight(key: string): void {
    const flight = this.#inflight.get(key);
    if (flight) flight.stale = true;
    this.#inflight.delete(key);
  }

  #land(pkg: string, key: string, flight: Flight): void {
    if (this.#inflight.get(key) !== flight) return;
    this.#inflight.delete(key);
    const keys = this.#flightsByPackage.get(pkg);
    keys?.delete(key);
    if (keys?.size === 0) this.#flightsByPackage.delete(pkg);
  }

  #store(pkg: string, key: string, keyHash: number, cached: CachedValue<unknown> | null, builtAt: number): void {
    this.#remove(key);
    if (cached === null) {
      if (!this.#admits(keyHash, ABSENT_SIZE + key.length)) return;
      this.#insert(key, new Entry(pkg, keyHash, null, ABSENT_SIZE + key.length, builtAt, this.#budget));
      this.#evict();
      return;
    }
    const { representation } = cached;
    // The bytes made so far; those made later (a compressed form, a body inflated from a kept
    // render) are counted when they are (Entry.encoded).
    const valueRoom = cached.value !== undefined ? (cached.jsonBytes ?? representation?.size ?? 0) * OBJECT_OVERHEAD : 0;
    const size = ENTRY_OVERHEAD + valueRoom + (representation?.heldBytes ?? 0);
    // One huge document must not flush everything else.
    if (size > this.#maxBytes / 2) return;
    if (!this.#admits(keyHash, size)) return;
    const entry = new Entry(pkg, keyHash, cached, size, builtAt, this.#budget);
    this.#insert(key, entry);
    if (representation) representation.onEncoded = entry;
    this.#evict();
  }

  #insert(key: string, entry: Entry): void {
    this.#entries.set(key, entry);
    const keys = this.#keysByPackage.get(entry.pkg);
    if (keys) keys.push(key);
    else this.#keysByPackage.set(entry.pkg, [key]);
    this.#budget.bytes += entry.size;
  }

  /**
   * Whether an entry of `size` bytes for the key of `keyHash` may come in: always while there is room, else
   * only if that key was asked for at least twice more lately than the entry eviction would take
   * first. A difference of one keeps what is there: in a read of everything in turn, the
   * document being read has one request more than every cached one not yet reached in this
   * pass (which eviction takes first), and letting it in would evict, in turn, each document
   * just before it is read.
   */
  #admits(keyHash: number, size: number): boolean {
    if (this.#budget.bytes + size <= this.#maxBytes) return true;
    const victim = this.#nextVictim();
    if (victim === undefined || this.#sketch.frequencyOfHash(keyHash) > this.#sketch.frequencyOfHash(victim.keyHash) + 1)
      return true;
    this.#rejected++;
    return false;
  }

  /** The entry eviction takes next: entries read since the last pass get their second chance on the way. */
  #nextVictim(): Entry | undefined {
    for (const [key, entry] of this.#entries) {
      if (!entry.referenced) return entry;
      entry.referenced = false;
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return undefined;
  }

  /**
   * Second-chance (clock) eviction, in insertion order: an entry read since the last pass moves
   * to the back once instead of going; the others go until the cache fits its bound.
   */
  #evict(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#budget.bytes <= this.#maxBytes) break;
      if (entry.referenced) {
        entry.referenced = false;
        this.#entries.delete(key);
        this.#entries.set(key, entry);
        continue;
      }
      this.#remove(key);
    }
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#budget.bytes -= entry.size;
    entry.live = false;
    const keys = this.#keysByPackage.get(entry.pkg);
    if (!keys) return;
    const at = keys.indexOf(key);
    if (at >= 0) keys.splice(at, 1);
    if (keys.length === 0) this.#keysByPackage.delete(entry.pkg);
  }
}

function packageKey(tenant: TenantId, name: string): string {
  return `${tenant}\0${name}`;
}
