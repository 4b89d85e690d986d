#!/usr/bin/env node
// The large-registry scenario alone (`npm run bench` runs a short form after its table): a
// registry of --packages packages seeded through the store, read with a Zipf popularity beside a
// registry of --small packages, against the ceiling; cold and cached document reads. See
// bench/README.md, "Large registry (issue 29)".
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from './lib/flags.js';
import { formatLargeRegistry, runLargeRegistry } from './lib/large-registry.js';
import { checkWrk } from './lib/wrk.js';
import { repoRoot } from './lib/targets.js';

const HELP = `Usage: node bench/large-registry.js [options]

  --packages <n>       packages of the large registry (default 100000)
  --small <n>          packages of the small registry it is compared with (default 1000; 0: none)
  --versions <n>       versions of each package (default 2)
  --tarball-size <b>   incompressible tarball bytes of each version (default 4096)
  --draws <n>          Zipf draws (s = 1) of the request order (default 100000)
  --duration <s>       seconds of each measured wrk run (default 8)
  --rounds <n>         rounds; ours and the ceiling alternate within a round (default 2)
  --warmup <s>         seconds of the unmeasured run before each target's first round of a
                       workload (default 2)
  --data <dir>         where the seeded registries are kept between runs (default: a temporary
                       directory, removed at the end); PostgreSQL's are schemas bench_large_*,
                       kept too
  --postgres <url>     also on PostgreSQL (default $PKG_BENCH_POSTGRES, $PKG_TEST_POSTGRES or
                       postgres://postgres@127.0.0.1:5432/test)
  --no-postgres        only the embedded default
  --no-embedded        only PostgreSQL
  --workloads <list>   comma-separated subset of full, abbreviated, tarball, search, cold (the
                       one-at-a-time cold and cached reads); default all
  --cold-from <n>      skip the first n of the packages no workload read in the cold reads:
                       a run on the --data of another reads cold packages that one did not
                       (default 0)
  --no-build           do not run \`npm run build\` first
  --json <file>        where to write the JSON (default bench/results/large-registry-<date>.json)
`;

const args = parseFlags(
  {
    packages: { type: 'string', default: '100000' },
    small: { type: 'string', default: '1000' },
    versions: { type: 'string', default: '2' },
    'tarball-size': { type: 'string', default: '4096' },
    draws: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '2' },
    data: { type: 'string' },
    postgres: { type: 'string' },
    'no-postgres': { type: 'boolean', default: false },
    'no-embedded': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    workloads: { type: 'string' },
    'cold-from': { type: 'string', default: '0' },
    json: { type: 'string' },
  },
  HELP,
);

const log = (line) => process.stdout.write(`${line}\n`);
const whole = (name, min = 0) => {
  const n = Number(args[name]);
  if (!Number.isSafeInteger(n) || n < min)
    throw new Error(`--${name} must be a whole number of at least ${min}, got '${args[name]}'`);
  return n;
};

async function main() {
  checkWrk();
  if (!args['no-build']) execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'pkg-registry-bench-registry-'));
  const dataRoot = args.data ? path.resolve(args.data) : path.join(workDir, 'data');
  mkdirSync(dataRoot, { recursive: true });
  const started = new Date();
  try {
    const small = whole('small');
    const report = await runLargeRegistry({
      sizes: [...(small > 0 ? [small] : []), whole('packages', 1)],
      versions: whole('versions', 1),
      tarballSize: whole('tarball-size', 1024),
      draws: whole('draws', 1),
      duration: whole('duration', 1),
      rounds: whole('rounds', 1),
      warmup: whole('warmup'),
      coldFrom: whole('cold-from'),
      dataRoot,
      workDir,
      embedded: !args['no-embedded'],
      postgres: args['no-postgres']
        ? undefined
        : (args.postgres ??
          process.env.PKG_BENCH_POSTGRES ??
          process.env.PKG_TEST_POSTGRES ??
          'postgres://postgres@127.0.0.1:5432/test'),
      only: args.workloads?.split(',').map((w) => w.trim()),
      log,
    });
    const load = os.loadavg().map((l) => l.toFixed(1));
    log(
      `\n${started.toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'} · Node ${process.version} · load average ${load.join(' ')}`,
    );
    log(formatLargeRegistry(report));
    log(`\nthe whole run: ${((Date.now() - started.getTime()) / 60_000).toFixed(1)} minutes`);
    const out =
      args.json ?? path.join(repoRoot, 'bench/results', `large-registry-${started.toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify({ date: started.toISOString(), loadAverageAtEnd: load, ...report }, null, 2) + '\n');
    log(`\nresults written to ${path.relative(process.cwd(), out)}`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
