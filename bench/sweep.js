#!/usr/bin/env node
// Times the start-up sweep of orphan tarballs (`collectOrphanBlobs`) on an existing registry
// (bench/README.md, "Stop 37: the start-up sweep"), one run per invocation, in either of two ways:
//
// - alone: opens the registry's storage as `serve` does and runs the sweep with serve's grace
//   period; prints its wall time, the process's CPU time (the thread pool's included), its peak
//   RSS and the event loop's delay meanwhile (what a request arriving then would wait);
// - `--serve`: starts the build's `pkg-registry serve` (npm start's node options) on the registry
//   with one orphan planted, whose removal is logged when the sweep ends, and asks GET /-/ping
//   at a fixed pace from listening until 3 s after the sweep: the server's CPU time during the
//   sweep and the pings' latency during and after it.
//
//   node bench/sweep.js --data <dir>                                  # the embedded default
//   node bench/sweep.js --database <postgres url> --storage <dir>     # PostgreSQL + tarball directory
//   node --cpu-prof --cpu-prof-dir <dir> bench/sweep.js --data <dir>  # where the time goes
//
// The sweep deletes orphans: run it on a copy of a registry, never on one a server uses.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseFlags } from './lib/flags.js';
import { cpuSeconds } from './lib/process-stats.js';
import { REGISTRY_NODE_ENV, REGISTRY_NODE_FLAGS, repoRoot } from './lib/targets.js';

const USAGE = `usage: node bench/sweep.js (--data <dir> | --database <url> --storage <dir>) [options]
  --data <dir>        an embedded registry's data directory (SQLite + tarball files)
  --database <url>    a metadata database as serve takes it (postgres://…?schema=…)
  --storage <dir>     the tarball directory (with --database)
  --plant <n>         first put n orphan tarballs, dated a day back, into the first n package
                      directories: the sweep must report exactly n (default 0; --serve plants 1)
  --dist <dir>        the server build to time, for another build's (default: packages/server/dist)
  --serve             time the sweep of a started server, with pings beside it
  --ping-every <ms>   with --serve, the pace of the pings (default 5)
  --json              one JSON line instead of text
`;

const flags = parseFlags(
  {
    data: { type: 'string' },
    database: { type: 'string' },
    storage: { type: 'string' },
    plant: { type: 'string', default: '0' },
    dist: { type: 'string', default: path.join(repoRoot, 'packages/server/dist') },
    serve: { type: 'boolean', default: false },
    'ping-every': { type: 'string', default: '5' },
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
/** Pings after the sweep: the server's latency at rest, on the same machine at the same time. */
const PINGS_AFTER_MS = 3000;

const build = path.relative(process.cwd(), flags.dist);
const storageFlags = flags.data ? { data: flags.data } : { database: flags.database, storage: flags.storage };
const tarballs = flags.storage ?? path.join(flags.data, 'tarballs');
const result = flags.serve ? await sweepInServer() : await sweepAlone();
if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else process.stdout.write(`${describe(result)}\n`);
if (result.orphans !== result.planted) {
  process.stderr.write(`the sweep removed ${result.orphans} tarballs, ${result.planted} were planted\n`);
  process.exitCode = 1;
}

async function sweepAlone() {
  const dist = (file) => import(pathToFileURL(path.resolve(flags.dist, file)).href);
  const { loadConfig } = await dist('config/config.js');
  const { collectOrphanBlobs, createStorage } = await dist('storage/create-storage.js');
  const config = loadConfig({ flags: storageFlags, env: {} });
  const planted = plantOrphans(config.storage, Number(flags.plant));
  const storage = await createStorage(config);
  try {
    const load = os.loadavg()[0];
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const collected = await collectOrphanBlobs(storage, storage.shared ? SHARED_ORPHAN_GRACE_MS : 0, new Date());
    const wallMs = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    delay.disable();
    return {
      database: config.database.startsWith('sqlite:') ? 'sqlite' : 'postgres',
      build,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round((user + system) / 1000),
      cpuUserMs: Math.round(user / 1000),
      cpuSystemMs: Math.round(system / 1000),
      maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
      loopDelayP99Ms: Number((delay.percentile(99) / 1e6).toFixed(1)),
      loopDelayMaxMs: Number((delay.max / 1e6).toFixed(1)),
      load1: Number(load.toFixed(2)),
      orphans: collected.orphans,
      planted,
    };
  } finally {
    await storage.close();
  }
}

async function sweepInServer() {
  const planted = plantOrphans(tarballs, Math.max(1, Number(flags.plant)));
  const bin = path.resolve(flags.dist, '../bin/pkg-registry.js');
  const serveFlags = Object.entries(storageFlags).flatMap(([key, value]) => [`--${key}`, value]);
  const server = spawn(
    process.execPath,
    [...REGISTRY_NODE_FLAGS, bin, 'serve', ...serveFlags, '--host', '127.0.0.1', '--port', '0', '--log-level', 'info'],
    { env: { ...process.env, ...REGISTRY_NODE_ENV }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const seen = { port: undefined, listened: undefined, swept: undefined, failed: undefined, orphans: 0 };
  let pending = '';
  server.stdout.on('data', (chunk) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      if (entry.msg === 'pkg-registry listening') {
        seen.port = new URL(entry.address).port;
        seen.listened = { at: performance.now(), cpu: cpuSeconds(server.pid) };
      } else if (entry.msg === 'removed orphan tarballs left by an interrupted publish') {
        seen.swept = { at: performance.now(), cpu: cpuSeconds(server.pid) };
        seen.orphans = entry.removed;
      } else if (entry.msg === 'collecting orphan tarballs failed') {
        seen.failed = entry.err?.message ?? 'the sweep failed';
      }
    }
  });
  try {
    while (seen.port === undefined) {
      if (server.exitCode !== null) throw new Error('the server stopped before it listened');
      await sleep(5);
    }
    const load = os.loadavg()[0];
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ping = () =>
      new Promise((resolve, reject) => {
        const sent = performance.now();
        http
          .get({ host: '127.0.0.1', port: seen.port, path: '/-/ping', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(performance.now() - sent));
          })
          .on('error', reject);
      });
    const during = [];
    const after = [];
    const every = Number(flags['ping-every']);
    for (let next = performance.now(); ;) {
      next += every;
      if (next > performance.now()) await sleep(next - performance.now());
      const ms = await ping();
      if (seen.failed !== undefined) throw new Error(`the server's sweep failed: ${seen.failed}`);
      (seen.swept === undefined ? during : after).push(ms);
      if (seen.swept !== undefined && performance.now() - seen.swept.at > PINGS_AFTER_MS) break;
    }
    agent.destroy();
    return {
      database: flags.data ? 'sqlite' : 'postgres',
      build,
      serve: true,
      wallMs: Math.round(seen.swept.at - seen.listened.at),
      cpuMs: Math.round((seen.swept.cpu - seen.listened.cpu) * 1000),
      pings: during.length,
      pingDuringMs: percentiles(during),
      pingAfterMs: percentiles(after),
      load1: Number(load.toFixed(2)),
      orphans: seen.orphans,
      planted,
    };
  } finally {
    server.kill('SIGTERM');
    await exited;
  }
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share) => Number(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))].toFixed(2));
  return { p50: at(0.5), p99: at(0.99), max: at(1) };
}

function describe(r) {
  const head = `${r.database} (${r.build}${r.serve ? ', in serve' : ''}): sweep ${r.wallMs} ms wall, CPU ${r.cpuMs} ms`;
  const tail = `load ${r.load1}; orphans ${r.orphans} (planted ${r.planted})`;
  if (r.serve) {
    const ms = ({ p50, p99, max }) => `p50 ${p50} p99 ${p99} max ${max} ms`;
    return `${head}, ${r.pings} pings during it (${ms(r.pingDuringMs)}), after it ${ms(r.pingAfterMs)}, ${tail}`;
  }
  return (
    `${head} (${r.cpuUserMs} user + ${r.cpuSystemMs} system), max RSS ${r.maxRssMiB} MiB, ` +
    `event-loop delay p99 ${r.loopDelayP99Ms} ms max ${r.loopDelayMaxMs} ms, ${tail}`
  );
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
