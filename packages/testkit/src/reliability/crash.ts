import { randomBytes } from 'node:crypto';
import { LoadClient } from './http.js';
import { publish, signUp, versionProblem } from './registry-actions.js';
import { ResultBuilder, type ScenarioResult } from './results.js';
import type { Target } from './target.js';

export interface CrashOptions {
  /** How long publishes stream in before the kill. */
  streamMs: number;
  /** Publishes in flight at once. */
  concurrency?: number;
  /** Bytes of random payload per tarball (big enough that a write takes a moment). */
  payloadBytes?: number;
}

/** How long the kill waits, past streamMs, for the first acknowledged publish. */
const FIRST_ACKNOWLEDGEMENT_WAIT_MS = 30_000;

/**
 * kill -9 while publishes stream in, then a restart on the same data: every version that was
 * acknowledged (201) must be served whole, and the restarted server must answer.
 */
export async function crashScenario(target: Target, options: CrashOptions, run: string): Promise<ScenarioResult> {
  const result = new ResultBuilder('kill -9 during publishes, restart', target.profile);
  const name = `com.crash${run}.stream`;
  const acknowledged: string[] = [];
  let client = new LoadClient(target.url);
  let firstAcknowledged = () => {};
  const acknowledgedOnce = new Promise<void>((resolve) => (firstAcknowledged = resolve));
  try {
    const token = await signUp(client, `crasher-${run}`);
    let stop = false;
    let n = 0;
    let unexpected = 0;
    const publisher = async () => {
      while (!stop) {
        const version = `1.0.${n++}`;
        const res = await publish(client, token, name, version, randomBytes(options.payloadBytes ?? 128 * 1024));
        result.requests++;
        if (res.status === 201) {
          acknowledged.push(version);
          firstAcknowledged();
        }
        // After the kill, requests fail without an answer: that is the crash, not a defect.
        else if (!stop && res.status !== undefined) {
          unexpected++;
          result.problem(`publish ${version} answered ${res.status} before the kill`);
        }
      }
    };
    const publishers = Array.from({ length: options.concurrency ?? 4 }, publisher);
    await new Promise((resolve) => setTimeout(resolve, options.streamMs));
    // On a busy machine the first publish can take longer than streamMs; a kill before any
    // acknowledgement would test nothing, so wait (boundedly) for one.
    await Promise.race([acknowledgedOnce, new Promise((resolve) => setTimeout(resolve, FIRST_ACKNOWLEDGEMENT_WAIT_MS))]);
    await target.kill9();
    stop = true;
    await Promise.all(publishers);
    client.close();

    await target.startProcess();
    client = new LoadClient(target.url);
    let intact = 0;
    for (const version of acknowledged) {
      const problem = await versionProblem(client, name, version);
      result.requests += 2;
      if (problem) result.problem(`acknowledged but not intact after the restart: ${problem}`);
      else intact++;
    }
    result.check(acknowledged.length > 0, 'no publish was acknowledged before the kill: nothing was tested');
    result.facts.push(`${intact}/${acknowledged.length} acknowledged versions intact`, `${unexpected} unexpected answers`);
  } catch (err) {
    result.problem(`could not run: ${(err as Error).message}`);
  } finally {
    client.close();
  }
  return result.finish();
}
