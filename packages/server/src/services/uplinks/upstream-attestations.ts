import { ProtocolError } from '@pkg/protocol';
import type { Uplink } from '../../config/uplink-config.js';
import type { TenantId, UpstreamAnswerStore } from '../../storage/ports.js';
import { upstreamAnswerKey, type AskUplink } from './upstream-advisories.js';

/** Largest upstream attestations answer accepted (npm's are a few kilobytes). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * `/-/npm/v1/attestations/<name>@<version>` of a proxied package: the upstream's answer, asked
 * through the uplink (its token, its circuit) and passed on byte for byte, never re-signed.
 * Kept for the uplink's maxAge in the upstream answer store (the shared database where there is
 * one, so every node answers from what any node asked); a version's attestations do not change
 * upstream, so while the upstream cannot be asked the last answer is served, however old.
 */
export class UpstreamAttestations {
  readonly #ask: AskUplink;
  readonly #now: () => number;
  readonly #answers: UpstreamAnswerStore;

  constructor(ask: AskUplink, now: () => number, answers: UpstreamAnswerStore) {
    this.#ask = ask;
    this.#now = now;
    this.#answers = answers;
  }

  async of(tenant: TenantId, uplink: Uplink, name: string, version: string): Promise<Buffer> {
    const key = upstreamAnswerKey('attestations', uplink, name, version);
    const cached = (await this.#answers.get([key])).get(key);
    const now = this.#now();
    if (cached !== undefined && cached.freshUntil > now) return cached.body;
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
      await this.#answers.put(new Map([[key, { body: result.body, freshUntil: now + uplink.maxAgeMs }]]), now);
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
