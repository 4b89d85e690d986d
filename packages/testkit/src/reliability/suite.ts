import { crashScenario } from './crash.js';
import { TENANT_DOMAIN, fuzzScenario } from './fuzz.js';
import { commandOutage, outageScenario, serverRestartOutage, type Outage } from './outage.js';
import { raceScenarios, type RaceOptions } from './races.js';
import type { ScenarioResult } from './results.js';
import { soakScenario } from './soak.js';
import { Target, type ReliabilityProfile } from './target.js';

export const SCENARIOS = ['fuzz', 'races', 'crash', 'soak', 'restart'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface SuiteOptions {
  profiles: ReliabilityProfile[];
  scenarios: readonly ScenarioName[];
  seed: number;
  fuzzRequests: number;
  races: RaceOptions;
  crashStreamMs: number;
  soakMs: number;
  soakRate: number;
  judgeMemory: boolean;
  restartRate: number;
  /** Load before the first restart and after each recovery. */
  restartQuietMs: number;
  /** How long after a restart command returned errors are still part of the outage. */
  restartRecoveryMs: number;
  /**
   * Shell commands that restart the shared PostgreSQL and Redis (scale-out profile); without
   * them the restart scenario restarts the server process instead.
   */
  serviceRestarts?: { postgres: string; redis: string };
  /** Called after each scenario (the runner prints progress). */
  onResult?: (result: ScenarioResult) => void;
}

/** The full run of `npm run reliability`. */
export const FULL_RUN: Omit<SuiteOptions, 'profiles' | 'seed'> = {
  scenarios: SCENARIOS,
  fuzzRequests: 3000,
  races: { versions: 50, sameVersion: 10, packages: 100, users: 5 },
  crashStreamMs: 3000,
  soakMs: 10 * 60_000,
  soakRate: 100,
  judgeMemory: true,
  restartRate: 50,
  restartQuietMs: 3000,
  restartRecoveryMs: 15_000,
};

/** A short form of every scenario (seconds): what `npm test` runs. */
export const SHORT_RUN: Omit<SuiteOptions, 'profiles' | 'seed'> = {
  scenarios: SCENARIOS,
  fuzzRequests: 200,
  races: { versions: 10, sameVersion: 4, packages: 10, users: 2 },
  crashStreamMs: 800,
  soakMs: 3000,
  soakRate: 40,
  judgeMemory: false,
  restartRate: 30,
  restartQuietMs: 1000,
  restartRecoveryMs: 3000,
};

/**
 * Runs the chosen scenarios on each profile, each on a registry of its own (a fresh data
 * directory, or fresh PostgreSQL schema, S3 bucket and Redis prefix), and returns every result.
 */
export async function runSuite(options: SuiteOptions): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const record = (result: ScenarioResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  let run = 0;
  for (const profile of options.profiles) {
    for (const scenario of options.scenarios) {
      const id = `${Date.now().toString(36)}${run++}`;
      const target = await Target.start(profile, scenario === 'fuzz' ? { registryDomain: TENANT_DOMAIN } : {});
      try {
        switch (scenario) {
          case 'fuzz':
            record(await fuzzScenario(target, { seed: options.seed, requests: options.fuzzRequests }));
            break;
          case 'races':
            for (const result of await raceScenarios(target, options.races, id)) record(result);
            break;
          case 'crash':
            record(await crashScenario(target, { streamMs: options.crashStreamMs }, id));
            break;
          case 'soak':
            record(
              await soakScenario(
                target,
                { durationMs: options.soakMs, rate: options.soakRate, judgeMemory: options.judgeMemory },
                id,
              ),
            );
            break;
          case 'restart': {
            const outages: Outage[] =
              profile === 'scale-out' && options.serviceRestarts
                ? [
                    commandOutage('PostgreSQL', options.serviceRestarts.postgres),
                    commandOutage('Redis', options.serviceRestarts.redis),
                  ]
                : [serverRestartOutage(target)];
            const timing = { rate: options.restartRate, quietMs: options.restartQuietMs, recoveryMs: options.restartRecoveryMs };
            record(await outageScenario(target, { outages, ...timing }, id));
            break;
          }
        }
      } finally {
        await target.close();
      }
    }
  }
  return results;
}
