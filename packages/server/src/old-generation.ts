import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// After each full collection V8 sets how far its old generation may grow before the next one: a
// factor of what survived, up to 4 for a process that may have a multi-GB heap (any machine with
// a few GB of memory), and at least 8 MB more. Under steady load what fills that room is garbage
// promoted from the young generation, so the process holds up to four times its live data
// between collections. V8 reads `--heap-growing-percent` each time it sets the limit: the server
// sets it at start and puts it back when it stops.

/**
 * Bounds the growth to `percent` of what survived the last full collection; 0 leaves it to V8.
 * Collects once at once, so that the bound applies from the start. Returns the undo.
 */
export function boundOldGenerationGrowth(percent: number): () => void {
  if (percent === 0) return () => {};
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  collectGarbage();
  return () => setFlagsFromString('--heap-growing-percent=0');
}

/**
 * One full collection. Until its first, V8 lets the old generation grow to its initial limit
 * (32 MiB of old space measured on the benchmark's server, against 24 once bounded), so the
 * first minutes of load would run unbounded. JavaScript reaches V8's `gc` only in a context
 * created while `--expose-gc` is set; the flag is put back at once, so no later context has it.
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  let gc: () => void;
  try {
    gc = runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  gc();
}
