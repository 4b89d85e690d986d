import { exec } from 'node:child_process';
import { LoadClient } from './http.js';
import { versionProblem } from './registry-actions.js';
import { ResultBuilder, type ScenarioResult } from './results.js';
import { describeRecords, prepareLoad } from './steady-load.js';
import type { Target } from './target.js';

/** Something taken away and brought back while the load runs. */
export interface Outage {
  name: string;
  run(): Promise<void>;
}

export interface OutageOptions {
  outages: Outage[];
  rate: number;
  /** Load before the first outage and after each recovery. */
  quietMs: number;
  /** After an outage's command returned, how long the service may take to be usable again. */
  recoveryMs: number;
}

/**
 * Restarts (of PostgreSQL, Redis, or the server process itself) under a steady load: errors
 * only inside each outage (from its start until `recoveryMs` after its command returned), the
 * server alive, and every acknowledged publish intact afterwards.
 */
export async function outageScenario(target: Target, options: OutageOptions, run: string): Promise<ScenarioResult> {
  const result = new ResultBuilder(`restart under load: ${options.outages.map((o) => o.name).join(', ')}`, target.profile);
  const client = new LoadClient(target.url);
  try {
    const { load } = await prepareLoad(client, run, options.rate);
    const windows: { name: string; from: number; returned: number; to: number }[] = [];
    load.start();
    await sleep(options.quietMs);
    for (const outage of options.outages) {
      const from = performance.now();
      try {
        await outage.run();
      } catch (err) {
        result.problem(`${outage.name}: the command failed: ${(err as Error).message}`);
      }
      const returned = performance.now();
      windows.push({ name: outage.name, from, returned, to: returned + options.recoveryMs });
      await sleep(options.recoveryMs + options.quietMs);
    }
    await load.stop();
    result.requests += load.records.length;

    const errors = load.errors();
    const outside = errors.filter((e) => !windows.some((w) => e.endedAt >= w.from && e.sentAt <= w.to));
    result.check(outside.length === 0, `${outside.length} errors outside the outages: ${describeRecords(outside)}`);
    const fiveHundreds = outside.filter((e) => e.status !== undefined && e.status >= 500);
    for (const w of windows) {
      const inside = errors.filter((e) => e.endedAt >= w.from && e.sentAt <= w.to);
      const lastError = Math.max(w.returned, ...inside.map((e) => e.endedAt));
      result.facts.push(
        `${w.name}: restart ${Math.round(w.returned - w.from)} ms, ${inside.length} errors (${describeStatuses(inside)}), last ${Math.round(lastError - w.returned)} ms after`,
      );
    }
    result.check(target.deaths === 0, `the server died: ${target.deathReasons.join('; ')}`);
    let intact = 0;
    for (const { name, version } of load.acknowledged) {
      const problem = await versionProblem(client, name, version);
      if (problem) result.problem(`lost: ${problem}`);
      else intact++;
    }
    result.requests += 2 * load.acknowledged.length;
    result.facts.push(`${fiveHundreds.length} × 5xx outside outages`, `${intact}/${load.acknowledged.length} publishes intact`);
  } catch (err) {
    result.problem(`could not run: ${(err as Error).message}`);
  } finally {
    client.close();
  }
  return result.finish();
}

/** An outage made by a shell command (a database restart). */
export function commandOutage(name: string, command: string): Outage {
  return {
    name,
    run: () =>
      new Promise((resolve, reject) => {
        exec(command, { timeout: 120_000 }, (err, _stdout, stderr) =>
          err ? reject(new Error(`${err.message} ${stderr}`)) : resolve(),
        );
      }),
  };
}

/** The server process stopped (SIGTERM) and started again on the same port and data. */
export function serverRestartOutage(target: Target): Outage {
  return {
    name: 'server process',
    async run() {
      await target.stopProcess();
      await target.startProcess();
    },
  };
}

function describeStatuses(records: { status: number | undefined; failure?: string }[]): string {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(String(r.status ?? r.failure), (counts.get(String(r.status ?? r.failure)) ?? 0) + 1);
  return [...counts.entries()].map(([k, n]) => `${n} × ${k}`).join(', ') || 'none';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
