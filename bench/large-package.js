#!/usr/bin/env node
// The large-package scenario alone (`npm run bench` runs it too, after its table): publish of an
// incompressible package of --size-mb MiB and 8 concurrent downloads of it, against our embedded
// default, our scale-out profile (PostgreSQL + Redis + the S3 test server) and, with
// --with-verdaccio, Verdaccio 6.8.0. See bench/README.md, "Large package".
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from './lib/flags.js';
import { formatLargePackage, runLargePackage } from './lib/large-package.js';
import { installVerdaccio, repoRoot } from './lib/targets.js';

const HELP = `Usage: node bench/large-package.js [options]

  --size-mb <n>        MiB of incompressible data in the package (default 500)
  --with-verdaccio     also Verdaccio 6.8.0
  --no-scale-out       only the embedded default
  --postgres <url>     scale-out database (default $PKG_BENCH_POSTGRES, $PKG_TEST_POSTGRES or
                       postgres://postgres@127.0.0.1:5432/test); a fresh schema is used and dropped
  --redis <url>        scale-out Redis (default $PKG_BENCH_REDIS, $PKG_TEST_REDIS or redis://127.0.0.1:6379)
  --no-build           do not run \`npm run build\` first
  --json <file>        where to write the JSON (default bench/results/large-package-<date>.json)
`;

const args = parseFlags(
  {
    'size-mb': { type: 'string', default: '500' },
    'with-verdaccio': { type: 'boolean', default: false },
    'no-scale-out': { type: 'boolean', default: false },
    postgres: { type: 'string' },
    redis: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
  HELP,
);

const log = (line) => process.stdout.write(`${line}\n`);

async function main() {
  const sizeMiB = Number(args['size-mb']);
  if (!Number.isSafeInteger(sizeMiB) || sizeMiB < 1)
    throw new Error(`--size-mb must be a whole number, got '${args['size-mb']}'`);
  if (!args['no-build']) execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'pkg-registry-bench-large-'));
  const started = new Date();
  try {
    const verdaccio = args['with-verdaccio'] ? await installVerdaccio(log) : undefined;
    const report = await runLargePackage({
      sizeMiB,
      workDir,
      args,
      withVerdaccio: Boolean(verdaccio),
      verdaccioBin: verdaccio?.bin,
      scaleOut: !args['no-scale-out'],
      log,
    });
    log(`\n${started.toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'} · Node ${process.version}`);
    log(formatLargePackage(report));
    const out =
      args.json ?? path.join(repoRoot, 'bench/results', `large-package-${started.toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify({ date: started.toISOString(), ...report }, null, 2) + '\n');
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
