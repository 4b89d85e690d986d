#!/usr/bin/env node
// Search benchmark: seeds a fresh embedded data directory (SQLite + files) with a synthetic
// registry, starts the real `pkg-registry` binary on 127.0.0.1 and measures /-/v1/search
// latency at a fixed number of concurrent connections. See bench/README.md ("Search").
//
// Seeding goes through the metadata store (a package handle's update, the same write path
// and search-index hook a publish uses) rather than the HTTP publish route: 100,000 publishes
// with tarballs would take hours and measure tarball handling, not search.
//
// After `npm run build` at the root: node bench/search.js (--help lists the flags).
// With --data of a directory seeded before (and --keep), seeding is skipped.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { UNITY_SCOPE, prng, queries, storedCorpus as corpus } from './lib/corpus.js';
import { parseFlags } from './lib/flags.js';
import { REGISTRY_NODE_ENV, REGISTRY_NODE_FLAGS } from './lib/targets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `Usage: node bench/search.js [--packages 100000] [--versions 5] [--connections 20]
                             [--duration 10] [--max-requests 200000] [--data <dir>] [--keep]
                             [--scenarios one-word,fragment,...] [--json <file>]
See bench/README.md ("Search benchmark").
`;
const args = parseFlags(
  {
    packages: { type: 'string', default: '100000' },
    versions: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
    duration: { type: 'string', default: '10' },
    'max-requests': { type: 'string', default: '200000' },
    data: { type: 'string' },
    keep: { type: 'boolean', default: false },
    scenarios: { type: 'string' },
    json: { type: 'string' },
  },
  USAGE,
);

const PACKAGES = Number(args.packages);
const VERSIONS = Number(args.versions);
const CONNECTIONS = Number(args.connections);
const DURATION_MS = Number(args.duration) * 1000;
const MAX_REQUESTS = Number(args['max-requests']);

async function seed(dataDir) {
  const { createStorage, loadConfig } = await import('@pkg/server');
  const { buildStoredPackage } = await import('@pkg/testkit');
  const config = loadConfig({ flags: { data: dataDir }, env: {} });
  const storage = await createStorage(config);
  const existing = (await storage.packages.listPackageNames('')).length;
  if (existing >= PACKAGES) {
    console.log(`data directory already holds ${existing} packages: not seeding`);
  } else {
    const started = performance.now();
    let n = 0;
    for (const pkg of corpus(PACKAGES, VERSIONS, buildStoredPackage)) {
      await storage.packages.package('', pkg.document.name).update(() => ({ next: pkg, result: undefined }));
      if (++n % 10_000 === 0) console.log(`  seeded ${n} packages (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    console.log(`seeded ${n} packages × ${VERSIONS} versions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  // The daily score refresh, done here so that the servers started below do not run it while measured.
  const today = new Date().toISOString().slice(0, 10);
  if ((await storage.search.scoresRefreshedOn('')) !== today) await storage.search.refreshScores('', null, new Date());
  await storage.close();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startServer(dataDir, extraFlags) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      // Started as `npm start` starts it (the heap bounds are node options of its script).
      ...REGISTRY_NODE_FLAGS,
      path.join(root, 'packages/server/bin/pkg-registry.js'),
      'serve',
      ...['--data', dataDir, '--host', '127.0.0.1', '--port', String(port)],
      ...['--log-level', 'warn', '--rate-limit-anonymous', '0'],
      ...extraFlags,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...REGISTRY_NODE_ENV } },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if ((await get(`${url}/-/ping`).catch(() => 0)) === 200) return { url, child };
    await sleep(100);
  }
  child.kill();
  throw new Error('the registry did not start');
}

function get(url, agent) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

function getJson(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve(JSON.parse(body)));
      })
      .on('error', reject);
  });
}

/** CPU seconds (user + system) the process has used, from /proc (Linux); undefined elsewhere. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CONNECTIONS workers, each sending its next request when the last one finished (closed loop). */
async function load(url, paths) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies = new Float64Array(MAX_REQUESTS);
  let n = 0;
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const end = started + DURATION_MS;
  async function worker() {
    while (performance.now() < end && n < MAX_REQUESTS) {
      const target = paths[next++ % paths.length];
      const t0 = performance.now();
      const status = await get(url + target, agent).catch(() => 0);
      if (n < MAX_REQUESTS) latencies[n++] = performance.now() - t0;
      if (status !== 200) errors++;
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = latencies.slice(0, n).sort();
  const at = (p) => sorted[Math.min(n - 1, Math.floor((p / 100) * n))];
  return { requests: n, errors, rps: Math.round(n / elapsed), p50: at(50), p90: at(90), p99: at(99), max: sorted[n - 1] };
}

function searchPath(text, size = 20, from = 0) {
  return `/-/v1/search?text=${encodeURIComponent(text)}&size=${size}&from=${from}`;
}

async function main() {
  if (!existsSync(path.join(root, 'packages/server/dist/index.js'))) throw new Error('run `npm run build` first');
  const dataDir = args.data ?? mkdtempSync(path.join(os.tmpdir(), 'pkg-registry-bench-'));
  mkdirSync(dataDir, { recursive: true });
  console.log(`search benchmark: ${PACKAGES} packages × ${VERSIONS} versions, ${CONNECTIONS} connections`);
  await seed(dataDir);

  const { oneWord, fragment } = queries(prng(7));
  const unity = [searchPath(UNITY_SCOPE, 250, 0), searchPath(UNITY_SCOPE, 250, 250)];
  const scenarios = [
    { name: 'one-word', cache: true, paths: oneWord.map((q) => searchPath(q)) },
    { name: 'fragment', cache: true, paths: fragment.map((q) => searchPath(q)) },
    { name: 'unity scope listing', cache: true, paths: unity },
    { name: 'one-word, no cache', cache: false, paths: oneWord.map((q) => searchPath(q)) },
    { name: 'fragment, no cache', cache: false, paths: fragment.map((q) => searchPath(q)) },
    { name: 'unity scope listing, no cache', cache: false, paths: unity },
    { name: 'every package matches (com.), no cache', cache: false, paths: [searchPath('com.')] },
  ].filter((s) => !args.scenarios || args.scenarios.split(',').some((want) => s.name.startsWith(want.trim())));

  const results = [];
  for (const cache of [true, false]) {
    const group = scenarios.filter((s) => s.cache === cache);
    if (group.length === 0) continue;
    const server = await startServer(dataDir, cache ? [] : ['--search-cache', '0']);
    try {
      // Start-up refreshes every score once; let it finish before measuring.
      await sleep(3000);
      if (cache) {
        const [first, second] = await Promise.all(unity.map((p) => getJson(server.url + p)));
        console.log(`unity listing: total ${first.total}, pages of ${first.objects.length} + ${second.objects.length}`);
      }
      for (const scenario of group) {
        // One pass over the queries first (fills the cache where there is one; warms SQLite's pages).
        for (const p of scenario.paths) await get(server.url + p);
        const cpuBefore = cpuSeconds(server.child.pid);
        const result = await load(server.url, scenario.paths);
        const cpuAfter = cpuSeconds(server.child.pid);
        // Server CPU per request: what one search costs, whatever else the machine is doing.
        const cpuMs = cpuBefore === undefined ? undefined : ((cpuAfter - cpuBefore) * 1000) / result.requests;
        results.push({ scenario: scenario.name, ...result, serverCpuMsPerRequest: cpuMs });
        console.log(
          `${scenario.name.padEnd(40)} ${String(result.requests).padStart(7)} req ${String(result.rps).padStart(6)}/s` +
            `  p50 ${result.p50.toFixed(2)}  p90 ${result.p90.toFixed(2)}  p99 ${result.p99.toFixed(2)}` +
            `  max ${result.max.toFixed(1)} ms  errors ${result.errors}` +
            (cpuMs === undefined ? '' : `  server cpu ${cpuMs.toFixed(2)} ms/req`),
        );
      }
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((r) => server.child.once('exit', r));
    }
  }

  const report = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
    packages: PACKAGES,
    versions: VERSIONS,
    connections: CONNECTIONS,
    durationSeconds: DURATION_MS / 1000,
    results,
  };
  const out = args.json ?? path.join(root, 'bench/results', `search-${report.date.slice(0, 10)}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  console.log(`results written to ${path.relative(root, out)}`);
  if (!args.keep && !args.data) rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
