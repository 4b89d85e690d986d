import { describe, expect, it } from 'vitest';
import { SHORT_RUN, runSuite, testProfile, type ScenarioName } from '@pkg/testkit';

/**
 * The short form of every scenario of `npm run reliability` (docs/reliability.md): the same
 * code with small counts, on this run's profile, each on a registry process of its own. The
 * restart scenario restarts only the server process here, never the shared PostgreSQL and
 * Redis; memory is reported, not judged (that is the full run's job).
 */
const seed = Math.floor(Math.random() * 2 ** 31);

describe(`reliability, short form (fuzzer seed ${seed})`, () => {
  it.each<[ScenarioName, number]>([
    ['fuzz', 1],
    ['races', 3],
    ['crash', 1],
    ['soak', 1],
    ['restart', 1],
  ])(
    '%s',
    async (scenario, rows) => {
      const results = await runSuite({ ...SHORT_RUN, profiles: [testProfile()], scenarios: [scenario], seed });
      expect(results).toHaveLength(rows);
      for (const result of results) {
        expect({ scenario: result.scenario, problems: result.problems }).toEqual({ scenario: result.scenario, problems: [] });
        expect(result.requests).toBeGreaterThan(0);
      }
      // Each scenario starts registry processes of its own (on scale-out, with a fresh schema and
      // bucket): on a busy machine that alone can take most of a minute.
    },
    180_000,
  );
});
