import type { PublicKeyEntry } from '../registry-signatures.js';
import type { Uplink } from '../../config/uplink-config.js';
import type { UpstreamClient } from './upstream-client.js';

/** Largest upstream `/-/npm/v1/keys` answer accepted. */
const MAX_KEYS_BYTES = 1024 * 1024;
/** How long an upstream that failed is left alone before it is asked again (its last keys are served meanwhile). */
const RETRY_MS = 5_000;

interface Entry {
  until: number;
  keys: PublicKeyEntry[];
}

/**
 * The public keys of the uplinks' registries (their `/-/npm/v1/keys`), kept for each uplink's
 * `maxAge`. npm checks the signatures of every package against the keys of the registry it talks
 * to: proxied packages keep their upstream's signatures, so this registry's keys endpoint lists
 * the upstream's keys beside its own. An upstream that cannot be asked keeps its last keys; one
 * never reached adds none (a missing key is what npm then reports, not a failure of the endpoint).
 */
export class UpstreamKeys {
  readonly #client: UpstreamClient;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(client: UpstreamClient, now: () => number) {
    this.#client = client;
    this.#now = now;
  }

  async keysOf(uplinks: readonly Uplink[]): Promise<PublicKeyEntry[]> {
    const lists = await Promise.all(uplinks.map((uplink) => this.#keysOf(uplink)));
    return lists.flat();
  }

  async #keysOf(uplink: Uplink): Promise<PublicKeyEntry[]> {
    const cacheKey = `${uplink.url}\0${uplink.authorization ?? ''}`;
    const cached = this.#entries.get(cacheKey);
    const now = this.#now();
    if (cached && cached.until > now) return cached.keys;
    const result = await this.#client.get({
      url: `${uplink.url}/-/npm/v1/keys`,
      timeoutMs: uplink.timeoutMs,
      authorization: uplink.authorization,
      accept: 'application/json',
      maxBytes: MAX_KEYS_BYTES,
    });
    let keys: PublicKeyEntry[] | undefined;
    if (result.kind === 'ok') keys = parseKeys(result.body);
    else if (result.kind === 'not-found') keys = [];
    if (keys === undefined) {
      this.#entries.set(cacheKey, { until: now + RETRY_MS, keys: cached?.keys ?? [] });
      return cached?.keys ?? [];
    }
    this.#entries.set(cacheKey, { until: now + uplink.maxAgeMs, keys });
    return keys;
  }
}

/** The well-formed entries of a keys document, as the upstream wrote them; undefined when it is not one. */
function parseKeys(body: Buffer): PublicKeyEntry[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return undefined;
  return keys.filter(
    (key): key is PublicKeyEntry =>
      typeof key === 'object' &&
      key !== null &&
      typeof (key as PublicKeyEntry).keyid === 'string' &&
      typeof (key as PublicKeyEntry).key === 'string' &&
      ((key as PublicKeyEntry).expires === null || typeof (key as PublicKeyEntry).expires === 'string'),
  );
}
