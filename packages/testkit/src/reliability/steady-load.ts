import { publish, signUp } from './registry-actions.js';
import type { LoadClient, Outcome } from './http.js';

/** One request of the load, as it ended. */
export interface LoadRecord {
  /** performance.now() when it was sent and when it ended. */
  sentAt: number;
  endedAt: number;
  op: string;
  status: number | undefined;
  failure?: string;
}

export interface SteadyLoadOptions {
  /** Requests started per second, whatever the answers' latency (an open workload). */
  rate: number;
  /** In-flight ceiling: past it a tick's requests are skipped and counted, not queued. */
  maxInFlight?: number;
  /** The load's account and the packages it reads and publishes to (each already has 1.0.0). */
  token: string;
  packages: string[];
  /** Search texts. */
  queries?: string[];
}

/** Expected answers per operation: anything else is an error of the load. */
const EXPECTED: Record<string, number[]> = {
  document: [200],
  abbreviated: [200],
  tarball: [200],
  search: [200],
  whoami: [200],
  publish: [201],
  ping: [200],
};

/**
 * A steady mixed load of what clients do most (documents, tarballs, search, whoami) with a
 * trickle of publishes, at a fixed rate. Every request is recorded with its times, so a scenario
 * can tell errors inside an outage from errors outside it; acknowledged publishes are kept so
 * that nothing lost can be checked afterwards.
 */
export class SteadyLoad {
  readonly records: LoadRecord[] = [];
  readonly acknowledged: { name: string; version: string }[] = [];
  skipped = 0;
  #client: LoadClient;
  readonly #options: SteadyLoadOptions;
  #timer: NodeJS.Timeout | undefined;
  #inFlight = new Set<Promise<void>>();
  #owed = 0;
  #seq = 0;

  constructor(client: LoadClient, options: SteadyLoadOptions) {
    this.#client = client;
    this.#options = options;
  }

  start(): void {
    // Owed requests follow the clock, not the tick count: timers drift under load.
    let last = performance.now();
    this.#timer = setInterval(() => {
      const now = performance.now();
      this.#owed += (this.#options.rate * (now - last)) / 1000;
      last = now;
      while (this.#owed >= 1) {
        this.#owed--;
        if (this.#inFlight.size >= (this.#options.maxInFlight ?? 64)) {
          this.skipped++;
          continue;
        }
        const sent = this.#one();
        this.#inFlight.add(sent);
        void sent.finally(() => this.#inFlight.delete(sent));
      }
    }, 20);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.#inFlight);
  }

  /** Records that ended with an answer other than the expected one, or with none. */
  errors(from = -Infinity, to = Infinity): LoadRecord[] {
    return this.records.filter(
      (r) => r.endedAt >= from && r.sentAt <= to && (r.status === undefined || !EXPECTED[r.op]!.includes(r.status)),
    );
  }

  async #one(): Promise<void> {
    const i = this.#seq++;
    const { packages, token } = this.#options;
    const name = packages[i % packages.length]!;
    const roll = i % 100;
    const sentAt = performance.now();
    let op: string;
    let outcome: Outcome;
    if (roll < 30) {
      op = 'document';
      outcome = await this.#client.request('GET', `/${name}`);
    } else if (roll < 45) {
      op = 'abbreviated';
      outcome = await this.#client.request('GET', `/${name}`, { headers: { accept: 'application/vnd.npm.install-v1+json' } });
    } else if (roll < 70) {
      op = 'tarball';
      outcome = await this.#client.request('GET', `/${name}/-/${name}-1.0.0.tgz`);
    } else if (roll < 82) {
      op = 'search';
      const queries = this.#options.queries ?? ['reliability', 'load', 'com'];
      outcome = await this.#client.request(
        'GET',
        `/-/v1/search?text=${encodeURIComponent(queries[i % queries.length]!)}&size=20`,
      );
    } else if (roll < 94) {
      op = 'whoami';
      outcome = await this.#client.request('GET', '/-/whoami', { token });
    } else if (roll < 97) {
      op = 'ping';
      outcome = await this.#client.request('GET', '/-/ping');
    } else {
      op = 'publish';
      const version = `2.0.${i}`;
      outcome = await publish(this.#client, token, name, version);
      if (outcome.status === 201) this.acknowledged.push({ name, version });
    }
    this.records.push({
      sentAt,
      endedAt: performance.now(),
      op,
      status: outcome.status,
      ...(outcome.failure !== undefined ? { failure: outcome.failure } : {}),
    });
  }
}

/** `n × op status` for a few records: what went wrong, in one line. */
export function describeRecords(records: LoadRecord[]): string {
  const counts = new Map<string, number>();
  for (const r of records) {
    const key = `${r.op} ${r.status ?? r.failure}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].map(([k, n]) => `${n} × ${k}`).join(', ');
}

/** An account and a few published packages for a steady load. */
export async function prepareLoad(
  client: LoadClient,
  run: string,
  rate: number,
): Promise<{ load: SteadyLoad; packages: string[] }> {
  const token = await signUp(client, `loader-${run}`);
  const packages = Array.from({ length: 5 }, (_, i) => `com.load${run}.package${i}`);
  for (const name of packages) {
    const res = await publish(client, token, name, '1.0.0');
    if (res.status !== 201) throw new Error(`could not publish ${name}: ${res.status ?? res.failure}`);
  }
  return { load: new SteadyLoad(client, { rate, token, packages, queries: [`load${run}`, 'package', 'com'] }), packages };
}
