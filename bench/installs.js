#!/usr/bin/env node
// The install benchmark on its own (`npm run bench -- --workloads installs` runs the same):
// `pkg install` of generated Unity (50 packages), Godot 4 (20) and Unreal 5 (10) projects and
// `npm install` of the same sets against our registry and the limit (the same bytes from a bare
// node:http server), cold and warm, then `npm install` through an uplink. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from './lib/flags.js';
import { installsPart } from './lib/installs.js';
import { ENGINES } from './lib/install-projects.js';
import { repoRoot } from './lib/targets.js';

const HELP = `Usage: node bench/installs.js [options]

  --rounds <n>        measured rounds; targets alternate within a round (default 3)
  --engines <list>    comma-separated subset of ${Object.keys(ENGINES).join(', ')} (default: all)
  --with-verdaccio    also npm install through Verdaccio ${'6.8.0'} proxying our registry
  --no-uplink         leave out the npm installs through an uplink
  --uplink-only       only the npm installs through an uplink (the Unity set; the limit records
                      npm's answers only)
  --compare-pkg <bin> also run another build of pkg (its bin/pkg.js) as \`pkg-before\`, interleaved
  --compare-server <bin>  in the uplink runs, also another build of the registry (its
                      packages/server/bin/pkg-registry.js) as the proxy \`ours-proxy-before\`
  --latency <ms>      then again against the limit with every answer delayed <ms> (a registry
                      across a network), pkg and npm alike
  --profile           run pkg under --cpu-prof; profiles go to bench/results/profiles/
  --keep              keep the temporary work directory
  --no-build          do not run \`npm run build\` first
  --json <file>       where to write the JSON (default bench/results/installs-<date>.json)
`;

const args = parseFlags(
  {
    rounds: { type: 'string', default: '3' },
    engines: { type: 'string' },
    'with-verdaccio': { type: 'boolean', default: false },
    'no-uplink': { type: 'boolean', default: false },
    'uplink-only': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'compare-pkg': { type: 'string' },
    'compare-server': { type: 'string' },
    latency: { type: 'string', default: '0' },
    keep: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
  HELP,
);

const log = (line) => process.stdout.write(`${line}\n`);

{
  const engines = args['uplink-only']
    ? ['unity']
    : args.engines
      ? args.engines.split(',').map((s) => s.trim())
      : Object.keys(ENGINES);
  for (const e of engines) if (!(e in ENGINES)) throw new Error(`unknown engine '${e}'`);
  if (!args['no-build']) execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'pkg-registry-installs-'));
  installsPart({
    workDir,
    resultsDir: path.join(repoRoot, 'bench/results'),
    started: new Date(),
    rounds: Math.max(1, Number(args.rounds) || 1),
    engines,
    withVerdaccio: args['with-verdaccio'],
    uplink: !args['no-uplink'],
    uplinkOnly: args['uplink-only'],
    profile: args.profile,
    json: args.json,
    comparePkg: args['compare-pkg'] ? path.resolve(args['compare-pkg']) : undefined,
    compareServer: args['compare-server'] ? path.resolve(args['compare-server']) : undefined,
    latencyMs: Math.max(0, Number(args.latency) || 0),
    log,
  })
    .then(
      () => 0,
      (err) => {
        process.stderr.write(`installs failed: ${err.stack ?? err.message}\n`);
        return 1;
      },
    )
    .then((code) => {
      if (args.keep) log(`kept ${workDir}`);
      else rmSync(workDir, { recursive: true, force: true });
      process.exit(code);
    });
}
