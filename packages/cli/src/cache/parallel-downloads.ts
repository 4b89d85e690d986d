/**
 * Downloading a project's tarballs several at a time. One after another, each tarball's round
 * trip, file creation and rename waited on the last one's: a project of 50 small packages spent
 * most of its install waiting. A few at once keep the connection busy; a bound keeps a registry
 * (and the local disk) from being flooded by a project of hundreds of packages.
 */
import type { DownloadProgress } from './tarball-cache.js';
import type { TransferProgress } from '../output/transfer-progress.js';

/** Tarballs downloaded at once (npm opens up to 15 connections to a registry). */
export const DOWNLOAD_CONCURRENCY = 8;

/**
 * `run` on every item, at most `limit` at a time; the results in the items' order. After a
 * failure no new item starts; those running are waited for, then the failure of the earliest
 * item is thrown (the one a run one at a time would have stopped at, whichever ended first).
 */
export async function eachBounded<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const failures: { index: number; error: unknown }[] = [];
  const worker = async () => {
    while (failures.length === 0 && next < items.length) {
      const index = next++;
      try {
        results[index] = await run(items[index]!, index);
      } catch (error) {
        failures.push({ index, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failures.length > 0) throw failures.reduce((a, b) => (b.index < a.index ? b : a)).error;
  return results;
}

const NONE: TransferProgress = { advance: () => undefined, done: () => undefined };

/**
 * Progress lines of downloads that run at once: a terminal has one line for them, so the first
 * download to start owns it until it ends and the others draw nothing meanwhile.
 */
export function oneLineAtATime(): (progress: DownloadProgress) => DownloadProgress {
  let owned = false;
  return (progress) => (total) => {
    if (owned) return NONE;
    owned = true;
    const shown = progress(total);
    return {
      advance: (bytes) => shown.advance(bytes),
      done() {
        shown.done();
        owned = false;
      },
    };
  };
}
