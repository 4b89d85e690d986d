import type { InvalidationBus, TenantId } from '../storage/ports.js';
import type { Representation } from './representation.js';

/** What the cache holds per key: the serialized form and the object it was serialized from. */
export interface CachedValue<T> {
  representation: Representation;
  /**
   * The object that was serialized; dropped when stored with `keepValue: false` (then only the
   * bytes remain). Shared between requests: never mutate it.
   */
  value: T | undefined;
  /** Whether `value` is worth keeping in memory besides the bytes (it costs room). */
  keepValue?: boolean;
}

interface Entry {
  pkg: string;
  cached: CachedValue<unknown>;
  size: number;
}

/** Parsed objects take a few times the room of their JSON; count them at this factor. */
const OBJECT_OVERHEAD = 3;

/**
 * Pre-serialized package documents, keyed by package and variant (form, tarball base URL),
 * bounded by bytes with least-recently-used eviction. Every write to a package is announced on
 * the invalidation bus; the cache then drops all variants of that package. A build that started
 * before an invalidation is not stored (generation check), so a stale document never sticks.
 */
export class DocumentCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  readonly #keysByPackage = new Map<string, Set<string>>();
  readonly #generations = new Map<string, number>();
  readonly #inflight = new Map<string, Promise<CachedValue<unknown> | undefined>>();
  #bytes = 0;

  constructor(bus: InvalidationBus, maxBytes: number) {
    this.#maxBytes = maxBytes;
    bus.subscribe((tenant, name) => this.invalidate(tenant, name));
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  /**
   * The cached value of (package, variant), or what `build` returns (cached for next time).
   * Concurrent misses of one key share one build. `undefined` (no such package) is not cached.
   */
  async get<T>(
    tenant: TenantId,
    name: string,
    variant: string,
    build: () => Promise<CachedValue<T> | undefined>,
  ): Promise<CachedValue<T> | undefined> {
    const pkg = packageKey(tenant, name);
    const key = `${pkg}\0${variant}`;
    const hit = this.#entries.get(key);
    if (hit) {
      // Re-insert: Map iteration order is the LRU order.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.cached as CachedValue<T>;
    }
    const generation = this.#generations.get(pkg) ?? 0;
    const flightKey = `${key}\0${generation}`;
    let pending = this.#inflight.get(flightKey);
    if (!pending) {
      pending = build().then((built) => {
        if (built && (this.#generations.get(pkg) ?? 0) === generation) this.#store(pkg, key, built);
        return built;
      });
      this.#inflight.set(flightKey, pending);
      const clear = () => this.#inflight.delete(flightKey);
      pending.then(clear, clear);
    }
    return (await pending) as CachedValue<T> | undefined;
  }

  /** Drops every cached variant of a package. */
  invalidate(tenant: TenantId, name: string): void {
    const pkg = packageKey(tenant, name);
    this.#generations.set(pkg, (this.#generations.get(pkg) ?? 0) + 1);
    for (const key of this.#keysByPackage.get(pkg) ?? []) this.#remove(key);
    this.#keysByPackage.delete(pkg);
  }

  #store(pkg: string, key: string, cached: CachedValue<unknown>): void {
    const keep = cached.keepValue !== false;
    const stored: CachedValue<unknown> = keep ? cached : { representation: cached.representation, value: undefined };
    const size = cached.representation.body.length * (keep ? 1 + OBJECT_OVERHEAD : 1);
    // One huge document must not flush everything else.
    if (size > this.#maxBytes / 2) return;
    this.#remove(key);
    const entry: Entry = { pkg, cached: stored, size };
    this.#entries.set(key, entry);
    let keys = this.#keysByPackage.get(pkg);
    if (!keys) this.#keysByPackage.set(pkg, (keys = new Set()));
    keys.add(key);
    this.#bytes += size;
    // Compressed forms are made on first request and count against the bound from then on.
    cached.representation.onEncoded = (bytes) => {
      if (this.#entries.get(key) !== entry) return;
      entry.size += bytes;
      this.#bytes += bytes;
      this.#evict();
    };
    this.#evict();
  }

  #evict(): void {
    for (const [key] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#remove(key);
    }
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.size;
    const keys = this.#keysByPackage.get(entry.pkg);
    keys?.delete(key);
    if (keys?.size === 0) this.#keysByPackage.delete(entry.pkg);
  }
}

function packageKey(tenant: TenantId, name: string): string {
  return `${tenant}\0${name}`;
}
