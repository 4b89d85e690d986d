#!/usr/bin/env node
// Times the start-up sweep of orphan tarballs (`collectOrphanBlobs`) on an existing registry,
// opening its storage as `serve` does (bench/README.md, "Stop 37: the start-up sweep"): the
// sweep's wall time and the process's CPU time (the thread pool's included), once per run.
//
//   node bench/sweep.js --data <dir>                                  # the embedded default
//   node bench/sweep.js --database <postgres url> --storage <dir>     # PostgreSQL + tarball directory
//   node --cpu-prof --cpu-prof-dir <dir> bench/sweep.js --data <dir>  # where the time goes
//
// The sweep deletes orphans: run it on a copy of a registry, never on one a server uses.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseFlags } from './lib/flags.js';
import { repoRoot } from './lib/targets.js';

const USAGE = `usage: node bench/sweep.js (--data <dir> | --database <url> --storage <dir>) [options]
  --data <dir>        an embedded registry's data directory (SQLite + tarball files)
  --database <url>    a metadata database as serve takes it (postgres://…?schema=…)
  --storage <dir>     the tarball directory (with --database)
  --plant <n>         first put n orphan tarballs, dated a day back, into the first n package
                      directories: the sweep must report exactly n (default 0)
  --dist <dir>        the server build to time, for another build's (default: packages/server/dist)
  --json              one JSON line instead of text
`;

const flags = parseFlags(
  {
    data: { type: 'string' },
    database: { type: 'string' },
    storage: { type: 'string' },
    plant: { type: 'string', default: '0' },
    dist: { type: 'string', default: path.join(repoRoot, 'packages/server/dist') },
    json: { type: 'boolean', default: false },
  },
  USAGE,
);
if (!flags.data && !(flags.database && flags.storage)) {
  process.stderr.write(`give --data, or --database and --storage\n${USAGE}`);
  process.exit(2);
}

/** What serve gives a sweep on shared storage (serve.ts SHARED_ORPHAN_GRACE_MS). */
const SHARED_ORPHAN_GRACE_MS = 60 * 60 * 1000;

const dist = (file) => import(pathToFileURL(path.resolve(flags.dist, file)).href);
const { loadConfig } = await dist('config/config.js');
const { collectOrphanBlobs, createStorage } = await dist('storage/create-storage.js');

const settings = flags.data ? { data: flags.data } : { database: flags.database, storage: flags.storage };
const config = loadConfig({ flags: settings, env: {} });
const planted = plantOrphans(config.storage, Number(flags.plant));
const storage = await createStorage(config);
try {
  const load = os.loadavg();
  // How long the sweep holds the event loop at a time: what a request arriving meanwhile waits.
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const cpu = process.cpuUsage();
  const startedAt = new Date();
  const started = performance.now();
  const collected = await collectOrphanBlobs(storage, storage.shared ? SHARED_ORPHAN_GRACE_MS : 0, startedAt);
  const wallMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  delay.disable();
  const result = {
    database: config.database.startsWith('sqlite:') ? 'sqlite' : 'postgres',
    build: path.relative(process.cwd(), flags.dist),
    wallMs: Math.round(wallMs),
    cpuUserMs: Math.round(user / 1000),
    cpuSystemMs: Math.round(system / 1000),
    maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    loopDelayP99Ms: Number((delay.percentile(99) / 1e6).toFixed(1)),
    loopDelayMaxMs: Number((delay.max / 1e6).toFixed(1)),
    load1: Number(load[0].toFixed(2)),
    ...collected,
    planted,
  };
  if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else
    process.stdout.write(
      `${result.database} (${result.build}): sweep ${result.wallMs} ms wall, CPU ${result.cpuUserMs} ms user + ` +
        `${result.cpuSystemMs} ms system, max RSS ${result.maxRssMiB} MiB, event-loop delay p99 ${result.loopDelayP99Ms} ms ` +
        `max ${result.loopDelayMaxMs} ms, load ${result.load1}; ` +
        `orphans ${collected.orphans} (planted ${planted}), temporary files ${collected.temporaryFiles}\n`,
    );
  if (collected.orphans !== planted) {
    process.stderr.write(`the sweep removed ${collected.orphans} tarballs, ${planted} were planted\n`);
    process.exitCode = 1;
  }
} finally {
  await storage.close();
}

/** Puts `count` unreferenced tarballs, a day old, into the first package directories of `root`. */
function plantOrphans(root, count) {
  if (count <= 0) return 0;
  const dayAgo = new Date(Date.now() - 24 * 60 * 60 * 1000);
  let planted = 0;
  for (const tenant of fs.readdirSync(root, { withFileTypes: true })) {
    if (!tenant.isDirectory() || tenant.name.startsWith('.')) continue;
    // A directory stream: the names of 100,000 packages held here would count in the sweep's RSS.
    const packages = fs.opendirSync(path.join(root, tenant.name));
    try {
      for (let entry = packages.readSync(); entry !== null && planted < count; entry = packages.readSync()) {
        const file = path.join(root, tenant.name, entry.name, `${entry.name}-0.0.0-orphan.tgz`);
        fs.writeFileSync(file, 'planted by bench/sweep.js');
        fs.utimesSync(file, dayAgo, dayAgo);
        planted++;
      }
    } finally {
      packages.closeSync();
    }
  }
  return planted;
}
