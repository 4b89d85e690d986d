import { LoadClient } from './http.js';
import { versionProblem } from './registry-actions.js';
import { ResultBuilder, type ScenarioResult } from './results.js';
import { describeRecords, prepareLoad } from './steady-load.js';
import type { Target } from './target.js';

export interface SoakOptions {
  durationMs: number;
  /** Requests per second. */
  rate: number;
  /** Judge RSS (the full run); the short form in `npm test` only reports it. */
  judgeMemory: boolean;
  /** How much the resident memory may grow from the second third to the last third of the run. */
  maxGrowthBytes?: number;
}

const MiB = 1024 * 1024;

/**
 * A steady mixed load for a while: no error of any kind, and resident memory flat, i.e. the
 * median RSS of the last third of the run at most `maxGrowthBytes` (16 MiB) above that of the
 * second third (the first third is warm-up: caches fill, V8 tiers up).
 */
export async function soakScenario(target: Target, options: SoakOptions, run: string): Promise<ScenarioResult> {
  const minutes = options.durationMs / 60_000;
  const label = minutes >= 1 ? `${Math.round(minutes * 10) / 10} min` : `${Math.round(options.durationMs / 1000)} s`;
  const result = new ResultBuilder(`soak: ${label} at ${options.rate} req/s`, target.profile);
  const client = new LoadClient(target.url);
  const samples: { at: number; rss: number }[] = [];
  try {
    const { load } = await prepareLoad(client, run, options.rate);
    const started = performance.now();
    const sampler = setInterval(
      () => {
        void target.rss().then((rss) => rss !== undefined && samples.push({ at: performance.now() - started, rss }));
      },
      Math.max(250, Math.min(5000, options.durationMs / 60)),
    );
    load.start();
    await new Promise((resolve) => setTimeout(resolve, options.durationMs));
    await load.stop();
    clearInterval(sampler);
    result.requests += load.records.length;

    const errors = load.errors();
    result.check(errors.length === 0, `${errors.length} errors: ${describeRecords(errors)}`);
    result.check(target.alive() && target.deaths === 0, `the server died: ${target.deathReasons.join('; ')}`);
    // A busy moment of a shared machine may skip a few; a server that stalls skips most (and
    // its requests time out as errors).
    const intended = load.records.length + load.skipped;
    result.check(
      load.skipped <= intended / 10,
      `${load.skipped} of ${intended} requests skipped: the server fell behind ${options.rate} req/s`,
    );
    for (const { name, version } of load.acknowledged.slice(-20)) {
      const problem = await versionProblem(client, name, version);
      if (problem) result.problem(problem);
    }
    const third = (k: number) =>
      median(
        samples
          .filter((s) => s.at >= (options.durationMs * k) / 3 && s.at < (options.durationMs * (k + 1)) / 3)
          .map((s) => s.rss),
      );
    const middle = third(1);
    const last = third(2);
    const peak = Math.max(...samples.map((s) => s.rss));
    if (middle !== undefined && last !== undefined) {
      result.facts.push(`RSS ${mib(middle)} → ${mib(last)} MiB (peak ${mib(peak)})`);
      if (options.judgeMemory) {
        result.check(
          last - middle <= (options.maxGrowthBytes ?? 16 * MiB),
          `RSS grew ${mib(last - middle)} MiB from the second to the last third of the run`,
        );
      }
    } else if (options.judgeMemory) result.problem('too few RSS samples to judge memory');
    result.facts.push(
      `${load.records.length} requests, ${errors.length} errors, ${load.skipped} skipped (more than 64 in flight)`,
      `${load.acknowledged.length} publishes`,
    );
  } catch (err) {
    result.problem(`could not run: ${(err as Error).message}`);
  } finally {
    client.close();
  }
  return result.finish();
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function mib(bytes: number): string {
  return (bytes / MiB).toFixed(1);
}
