import { ProtocolError } from '@pkg/protocol';
import type { Uplink } from '../../config/uplink-config.js';
import { BudgetLru } from '../../storage/budget-lru.js';
import type { TenantId } from '../../storage/ports.js';
import type { AskUplink } from './upstream-advisories.js';

/** Largest upstream attestations answer accepted (npm's are a few kilobytes). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Bytes of upstream answers one node keeps. */
const CACHE_BYTES = 32 * 1024 * 1024;

interface Entry {
  until: number;
  body: Buffer;
}

/**
 * `/-/npm/v1/attestations/<name>@<version>` of a proxied package: the upstream's answer, asked
 * through the uplink (its token, its circuit) and passed on byte for byte, never re-signed.
 * Kept in memory for the uplink's maxAge; a version's attestations do not change upstream, so
 * while the upstream cannot be asked the last answer is served, however old.
 */
export class UpstreamAttestations {
  readonly #ask: AskUplink;
  readonly #now: () => number;
  readonly #cache = new BudgetLru<Entry>(CACHE_BYTES);

  constructor(ask: AskUplink, now: () => number) {
    this.#ask = ask;
    this.#now = now;
  }

  async of(tenant: TenantId, uplink: Uplink, name: string, version: string): Promise<Buffer> {
    const key = `${uplink.url}\0${uplink.authorization ?? ''}\0${name}@${version}`;
    const cached = this.#cache.get(key);
    const now = this.#now();
    if (cached !== undefined && cached.until > now) return cached.body;
    const what = `${name}@${version}`;
    const result = await this.#ask(tenant, uplink, `attestations of ${what}`, {
      url: `${uplink.url}/-/npm/v1/attestations/${name}@${encodeURIComponent(version)}`,
      timeoutMs: uplink.timeoutMs,
      authorization: uplink.authorization,
      accept: 'application/json',
      maxBytes: MAX_ANSWER_BYTES,
      compressed: true,
    });
    if (result?.kind === 'ok' && isAttestations(result.body)) {
      this.#cache.set(key, { until: now + uplink.maxAgeMs, body: result.body }, result.body.length);
      return result.body;
    }
    if (result?.kind === 'not-found') {
      throw new ProtocolError('NOT_FOUND', `${what} has no attestations at the upstream registry '${uplink.name}'`);
    }
    if (cached !== undefined) return cached.body;
    if (result === undefined || result.kind === 'down') {
      throw new ProtocolError(
        'UPSTREAM_UNAVAILABLE',
        `The upstream registry '${uplink.name}' cannot be reached and the attestations of '${what}' are not cached here; try again later`,
        { 'retry-after': '10' },
      );
    }
    const why =
      result.kind === 'refused'
        ? `refused this registry's credentials (${result.status})`
        : result.kind === 'bad'
          ? result.reason
          : 'answered something that is not a list of attestations';
    throw new ProtocolError('BAD_GATEWAY', `The upstream registry '${uplink.name}' ${why}`);
  }
}

function isAttestations(body: Buffer): boolean {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { attestations?: unknown } | null;
    return Array.isArray(parsed?.attestations);
  } catch {
    return false;
  }
}
