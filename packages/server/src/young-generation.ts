import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

// V8 keeps new objects in a young generation of two semi-spaces. It starts at 2 MiB and doubles
// whenever enough objects survive its collections, up to 32 MiB on 64-bit: a busy server soon
// holds the maximum, a third of its memory, for a few microseconds less collection per request.
// The maximum is fixed when the process starts (`--max-semi-space-size`), before any setting is
// read; but V8 reads its growth factor each time it grows the space, so the server stops the
// growth at its own bound (the `youngGeneration` setting) by setting that factor to 1.

const GROW = '--semi-space-growth-factor=2'; // V8's default
const HOLD = '--semi-space-growth-factor=1';

/**
 * Keeps the young generation at its size until capYoungGeneration says how far it may grow (the
 * server calls it once listening).
 */
export function holdYoungGeneration(): void {
  setFlagsFromString(HOLD);
}

/**
 * Lets the young generation grow while one more doubling stays within `maxBytes` (so the bound is
 * rounded down to a power of two, at least V8's starting size); 0 gives V8 its own default.
 * Returns a function that ends the watch.
 */
export function capYoungGeneration(maxBytes: number): () => void {
  if (maxBytes === 0) {
    setFlagsFromString(GROW);
    return () => {};
  }
  let growing: boolean | undefined;
  const adjust = () => {
    const grow = youngGenerationBytes() * 2 <= maxBytes;
    if (grow === growing) return;
    growing = grow;
    setFlagsFromString(grow ? GROW : HOLD);
  };
  adjust();
  // V8 grows the space only at the end of a collection, by one doubling, and the next growth
  // needs as many surviving bytes again: a check after each collection (delivered between
  // turns of the event loop) is in time while the loop turns, as it does between requests.
  const observer = new PerformanceObserver(adjust);
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

/** Bytes of the young generation now (both semi-spaces). */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}
