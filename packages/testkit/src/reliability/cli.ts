import { parseArgs } from 'node:util';
import { newSeed } from './random.js';
import { formatTable } from './report.js';
import type { ScenarioResult } from './results.js';
import { FULL_RUN, SCENARIOS, SHORT_RUN, runSuite, type ScenarioName, type SuiteOptions } from './suite.js';
import type { ReliabilityProfile } from './target.js';

/** Restart commands of the project's CI machine (Debian packages); the environment overrides them. */
const DEFAULT_RESTARTS = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main restart',
  redis:
    'redis-cli shutdown nosave; redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
};

const USAGE = `Usage: npm run reliability -- [options]

  --profile embedded|scale-out|both   which registry setups (default: both)
  --only <list>                       some of: ${SCENARIOS.join(', ')} (comma-separated)
  --seed <n>                          the fuzzer's seed (printed by every run, for replay)
  --fuzz-requests <n>                 requests of the fuzzer (default ${FULL_RUN.fuzzRequests})
  --soak-minutes <n>                  length of the soak (default ${FULL_RUN.soakMs / 60_000}; decimals allowed)
  --short                             the short form of every scenario, as npm test runs it
  --no-restart-services               on scale-out, restart the server process instead of PostgreSQL and Redis
  --help

Restart commands: PKG_RELIABILITY_RESTART_POSTGRES, PKG_RELIABILITY_RESTART_REDIS.`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Whether PostgreSQL and Redis answered (the scale-out profile needs them). */
  scaleOutAvailable: boolean;
  env: NodeJS.ProcessEnv;
}

/** `npm run reliability`: runs the suite, prints the table; exit code 0 all passed, 1 a failure, 2 usage. */
export async function reliabilityCli(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        profile: { type: 'string', default: 'both' },
        only: { type: 'string' },
        seed: { type: 'string' },
        'fuzz-requests': { type: 'string' },
        'soak-minutes': { type: 'string' },
        short: { type: 'boolean', default: false },
        'no-restart-services': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const profiles: ReliabilityProfile[] =
    values.profile === 'both'
      ? ['embedded', 'scale-out']
      : values.profile === 'embedded' || values.profile === 'scale-out'
        ? [values.profile]
        : [];
  if (profiles.length === 0) return usage(io, `--profile must be embedded, scale-out or both, not '${values.profile}'`);
  const scenarios = (values.only?.split(',').map((s) => s.trim()) ?? [...SCENARIOS]) as ScenarioName[];
  const unknown = scenarios.filter((s) => !SCENARIOS.includes(s));
  if (unknown.length > 0) return usage(io, `unknown scenario ${unknown.join(', ')}: choose from ${SCENARIOS.join(', ')}`);
  const number = (flag: string, value: string | undefined, min: number): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n < min) throw new UsageError(`${flag} must be a number ≥ ${min}, not '${value}'`);
    return n;
  };
  let options: SuiteOptions;
  try {
    const base = values.short ? SHORT_RUN : FULL_RUN;
    const soakMinutes = number('--soak-minutes', values['soak-minutes'], 0.05);
    options = {
      ...base,
      profiles,
      scenarios,
      seed: Math.floor(number('--seed', values.seed, 0) ?? newSeed()),
      fuzzRequests: Math.floor(number('--fuzz-requests', values['fuzz-requests'], 1) ?? base.fuzzRequests),
      soakMs: soakMinutes !== undefined ? soakMinutes * 60_000 : base.soakMs,
      ...(values['no-restart-services'] || values.short
        ? {}
        : {
            serviceRestarts: {
              postgres: io.env.PKG_RELIABILITY_RESTART_POSTGRES ?? DEFAULT_RESTARTS.postgres,
              redis: io.env.PKG_RELIABILITY_RESTART_REDIS ?? DEFAULT_RESTARTS.redis,
            },
          }),
    };
  } catch (err) {
    if (err instanceof UsageError) return usage(io, err.message);
    throw err;
  }
  if (profiles.includes('scale-out') && !io.scaleOutAvailable) {
    io.err(
      'The scale-out profile needs PostgreSQL (127.0.0.1:5432, database test) and Redis (127.0.0.1:6379), which do not answer. ' +
        'Start them, or run with --profile embedded.',
    );
    return 1;
  }

  io.out(`Reliability suite: ${scenarios.join(', ')} on ${profiles.join(' and ')}; fuzzer seed ${options.seed}`);
  options.onResult = (r: ScenarioResult) =>
    io.out(`  ${r.passed ? 'pass' : 'FAIL'}  ${r.scenario} (${r.profile}), ${r.requests} requests, ${r.seconds.toFixed(1)} s`);
  const results = await runSuite(options);
  io.out(`\n${formatTable(results)}\n`);
  if (scenarios.includes('fuzz'))
    io.out(
      `Replay the fuzzer: npm run reliability -- --only fuzz --profile ${values.profile} --seed ${options.seed} --fuzz-requests ${options.fuzzRequests}`,
    );
  return results.every((r) => r.passed) ? 0 : 1;
}

class UsageError extends Error {}

function usage(io: CliIo, message: string): number {
  io.err(`${message}\n\n${USAGE}`);
  return 2;
}
