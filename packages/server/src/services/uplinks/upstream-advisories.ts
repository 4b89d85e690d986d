import { createHash } from 'node:crypto';
import semver from 'semver';
import type { Uplink, UplinkRules } from '../../config/uplink-config.js';
import { ADVISORY_SEVERITIES, type TenantId, type UpstreamAnswer, type UpstreamAnswerStore } from '../../storage/ports.js';
import type { UpstreamRequest, UpstreamResult } from './upstream-client.js';

/**
 * One advisory of an upstream's bulk answer, as the upstream wrote it (npm's has a numeric
 * `id`, CWE and CVSS fields): passed on unchanged, only its severity and range are checked.
 */
export type UpstreamAdvisory = Record<string, unknown> & { severity: string; vulnerable_versions: string };

/** What the uplinks said about the names they cover, and why some of it is missing or old. */
export interface UpstreamAdvisoryAnswer {
  /** By name: the upstream advisories that affect at least one of the versions asked about. */
  advisories: Map<string, UpstreamAdvisory[]>;
  /** One sentence per uplink that could not be asked (its packages are audited from what is cached, or locally only). */
  notes: string[];
}

/** Sends one request to an uplink under its circuit (UplinkService.ask). */
export type AskUplink = (
  tenant: TenantId,
  uplink: Uplink,
  what: string,
  request: UpstreamRequest,
) => Promise<UpstreamResult | undefined>;

/** Largest upstream bulk answer accepted. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The key of an upstream answer: a hash of what names the question, so that the shared store
 * never holds an uplink's credentials (they are part of it: another token may see other packages).
 */
export function upstreamAnswerKey(kind: string, uplink: Uplink, ...question: string[]): string {
  const hash = createHash('sha256');
  for (const part of [kind, uplink.url, uplink.authorization ?? '', ...question]) hash.update(part).update('\0');
  return `${kind}:${hash.digest('hex')}`;
}

/**
 * The advisories of packages that come through an uplink, asked of the upstream registry with
 * npm's bulk request (`POST /-/npm/v1/security/advisories/bulk`), so that `npm audit` and `pkg
 * audit` against this registry report what the upstream knows too. Kept per uplink, name
 * and version for the uplink's `maxAge`, like its documents, in the upstream answer store (the
 * shared database where there is one, so every node answers from what any node asked, also
 * after a restart). An upstream that cannot be asked
 * (down, its circuit open, refusing our credentials, answering junk) never fails the audit: its
 * packages are audited from what was cached before, however old, or from this registry's own
 * advisories only, and a note says so.
 */
export class UpstreamAdvisories {
  readonly #ask: AskUplink;
  readonly #now: () => number;
  readonly #answers: UpstreamAnswerStore;

  constructor(ask: AskUplink, now: () => number, answers: UpstreamAnswerStore) {
    this.#ask = ask;
    this.#now = now;
    this.#answers = answers;
  }

  async bulk(
    tenant: TenantId,
    rules: UplinkRules,
    asked: ReadonlyMap<string, readonly string[]>,
  ): Promise<UpstreamAdvisoryAnswer> {
    const byUplink = new Map<Uplink, Map<string, readonly string[]>>();
    for (const [name, versions] of asked) {
      const uplink = rules.match(name);
      if (uplink === undefined || versions.length === 0) continue;
      let names = byUplink.get(uplink);
      if (names === undefined) byUplink.set(uplink, (names = new Map<string, readonly string[]>()));
      names.set(name, versions);
    }
    const answer: UpstreamAdvisoryAnswer = { advisories: new Map(), notes: [] };
    await Promise.all([...byUplink].map(([uplink, names]) => this.#ofUplink(tenant, uplink, names, answer)));
    return answer;
  }

  async #ofUplink(
    tenant: TenantId,
    uplink: Uplink,
    names: ReadonlyMap<string, readonly string[]>,
    answer: UpstreamAdvisoryAnswer,
  ): Promise<void> {
    const now = this.#now();
    const keyOf = (name: string, version: string) => upstreamAnswerKey('advisories', uplink, name, version);
    const held = await this.#answers.get([...names].flatMap(([name, versions]) => versions.map((v) => keyOf(name, v))));
    const missing: Record<string, string[]> = {};
    for (const [name, versions] of names) {
      for (const version of versions) {
        const entry = held.get(keyOf(name, version));
        if (entry === undefined || entry.freshUntil <= now) (missing[name] ??= []).push(version);
      }
    }
    const count = Object.keys(missing).length;
    if (count > 0) {
      const problem = await this.#fetch(tenant, uplink, missing, now, keyOf, held);
      if (problem !== undefined) {
        const packages = count === 1 ? '1 package' : `${count} packages`;
        answer.notes.push(
          `The upstream registry '${uplink.name}' could not be asked for advisories (${problem}): ` +
            `the advisories of the ${packages} it serves are those cached earlier, if any, and this registry's own`,
        );
      }
    }
    for (const [name, versions] of names) {
      const found = new Map<string, UpstreamAdvisory>();
      for (const version of versions) {
        for (const advisory of advisoriesOf(held.get(keyOf(name, version)))) found.set(JSON.stringify(advisory), advisory);
      }
      if (found.size > 0) answer.advisories.set(name, [...found.values()]);
    }
  }

  /** Asks the upstream about `missing` and keeps the answer per version (also in `held`); the problem when it could not. */
  async #fetch(
    tenant: TenantId,
    uplink: Uplink,
    missing: Record<string, string[]>,
    now: number,
    keyOf: (name: string, version: string) => string,
    held: Map<string, UpstreamAnswer>,
  ): Promise<string | undefined> {
    const result = await this.#ask(tenant, uplink, 'advisories', {
      method: 'POST',
      url: `${uplink.url}/-/npm/v1/security/advisories/bulk`,
      json: missing,
      timeoutMs: uplink.timeoutMs,
      authorization: uplink.authorization,
      accept: 'application/json',
      maxBytes: MAX_ANSWER_BYTES,
      compressed: true,
    });
    if (result === undefined) return 'it is down: its circuit is open';
    if (result.kind === 'not-found') return 'it has no advisory endpoint';
    if (result.kind === 'down' || result.kind === 'bad') return result.reason;
    if (result.kind === 'refused') return `it refused this registry's credentials (${result.status})`;
    if (result.kind === 'not-modified') return 'it answered 304 to a request without a validator';
    const parsed = parseBulkAnswer(result.body);
    if (parsed === undefined) return 'it answered something that is not an advisory answer';
    const freshUntil = now + uplink.maxAgeMs;
    const answers = new Map<string, UpstreamAnswer>();
    for (const [name, versions] of Object.entries(missing)) {
      const advisories = parsed.get(name) ?? [];
      for (const version of versions) {
        // Each version keeps the advisories that affect it; one whose range cannot be read here goes with every version asked.
        const affecting = advisories.filter(
          (a) =>
            semver.validRange(a.vulnerable_versions) === null ||
            semver.satisfies(version, a.vulnerable_versions, { includePrerelease: true }),
        );
        answers.set(keyOf(name, version), { body: Buffer.from(JSON.stringify(affecting)), freshUntil });
      }
    }
    await this.#answers.put(answers, now);
    for (const [key, value] of answers) held.set(key, value);
    return undefined;
  }
}

/** The advisories an upstream answer kept for one version (none when it is not one). */
function advisoriesOf(answer: UpstreamAnswer | undefined): UpstreamAdvisory[] {
  if (answer === undefined) return [];
  try {
    const parsed = JSON.parse(answer.body.toString('utf8')) as unknown;
    return Array.isArray(parsed) ? (parsed as UpstreamAdvisory[]) : [];
  } catch {
    return [];
  }
}

/** The well-formed advisories of a bulk answer, by name; undefined when the answer is not one. */
function parseBulkAnswer(body: Buffer): Map<string, UpstreamAdvisory[]> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const answer = new Map<string, UpstreamAdvisory[]>();
  for (const [name, list] of Object.entries(parsed)) {
    if (!Array.isArray(list)) continue;
    const valid = list.filter(
      (a): a is UpstreamAdvisory =>
        typeof a === 'object' &&
        a !== null &&
        (ADVISORY_SEVERITIES as readonly unknown[]).includes((a as UpstreamAdvisory).severity) &&
        typeof (a as UpstreamAdvisory).vulnerable_versions === 'string' &&
        (typeof (a as UpstreamAdvisory).id === 'string' || typeof (a as UpstreamAdvisory).id === 'number'),
    );
    if (valid.length > 0) answer.set(name, valid);
  }
  return answer;
}
