import { setFlagsFromString } from 'node:v8';

// After each full collection V8 sets how far its old generation may grow before the next one: a
// factor of what survived, up to 4 for a process that may have a multi-GB heap (any machine with
// a few GB of memory), and at least 8 MB more. Under steady load what fills that room is garbage
// promoted from the young generation, so the process holds up to four times its live data
// between collections. V8 reads `--heap-growing-percent` each time it sets the limit: the server
// sets it at start and puts it back when it stops.

/** Bounds the growth to `percent` of what survived the last full collection; 0 leaves it to V8. Returns the undo. */
export function boundOldGenerationGrowth(percent: number): () => void {
  if (percent === 0) return () => {};
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return () => setFlagsFromString('--heap-growing-percent=0');
}
