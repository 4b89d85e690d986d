#!/usr/bin/env node
// How latency and memory change with the size of the registry (`--part packages`: 1,000 →
// 100,000 packages) and with the size of one package (`--part versions`: 20 → 1,000 versions).
// See bench/README.md ("Scaling").
//
// Packages: the corpus of bench/lib/corpus.js is written through the metadata store (the same
// write path and search-index hook a publish uses; publishing 100,000 packages over HTTP would
// take most of an hour) with a small tarball file per version, so start-up sees a realistic blob
// store. The documents and tarballs the workloads read are published through the API. The server
// runs with the search cache off, so search latency is the index's own.
// Versions: one package published through the API, version after version.
//
//   node bench/scaling.js --help   (the flags)
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { prng, queries, storedCorpus } from './lib/corpus.js';
import { request } from './lib/http.js';
import { memoryMiB, settle } from './lib/process-stats.js';
import { runPublishLoad } from './lib/publish-load.js';
import { formatRows } from './lib/report.js';
import { login, publish, SPECIAL, versionOf } from './lib/seed.js';
import { manifestOf, publishBody, randomPayload, tarballWith } from './lib/tarballs.js';
import { repoRoot, startOurs } from './lib/targets.js';
import { ABBREVIATED_ACCEPT } from './lib/workloads.js';
import { checkWrk, runWrk, writeWrkScript } from './lib/wrk.js';
import { parseFlags } from './lib/flags.js';

const USAGE = `Usage: node bench/scaling.js [--part packages|versions|both] [--levels 1000,10000,100000]
                              [--version-levels 20,100,300,1000] [--duration 3] [--connections 50]
                              [--data <dir>] [--keep] [--json <file>]
See bench/README.md ("Scaling").
`;
const args = parseFlags(
  {
    part: { type: 'string', default: 'both' },
    levels: { type: 'string', default: '1000,10000,100000' },
    'version-levels': { type: 'string', default: '20,100,300,1000' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    data: { type: 'string' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
  USAGE,
);

const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const log = (line) => process.stdout.write(`${line}\n`);

async function wrk(server, name, paths, headers = {}, expected = 200) {
  const script = writeWrkScript(server.workDir, name, { paths, headers });
  const result = await runWrk({ baseUrl: server.url, script, firstPath: paths[0], seconds: DURATION, connections: CONNECTIONS });
  if (expected < 400 && result.badStatus > 0) throw new Error(`${name}: ${result.badStatus} answers were not ${expected}`);
  return result;
}

const summary = (r) => ({ rps: Math.round(r.rps), p50: round(r.p50), p99: round(r.p99) });
const round = (n) => Math.round(n * 100) / 100;

/** Writes packages [from, to) of the corpus through the store, with a tarball file per version. */
async function seedStore(dataDir, from, to) {
  const { createStorage, loadConfig } = await import('@pkg/server');
  const { buildStoredPackage } = await import('@pkg/testkit');
  const config = loadConfig({ flags: { data: dataDir }, env: {} });
  const storage = await createStorage(config);
  const started = performance.now();
  const tarball = randomBytes(1024);
  let i = 0;
  for (const pkg of storedCorpus(to, 2, buildStoredPackage)) {
    if (i++ < from) continue;
    const name = pkg.document.name;
    await storage.packages.package('', name).update(() => ({ next: pkg, result: undefined }));
    const dir = path.join(dataDir, 'tarballs', '_global', name);
    mkdirSync(dir, { recursive: true });
    for (const version of Object.keys(pkg.document.versions)) writeFileSync(path.join(dir, `${name}-${version}.tgz`), tarball);
    if (i % 10_000 === 0) log(`  seeded ${i} packages (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  await storage.close();
  log(`  seeded packages ${from}–${to} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function startTimed(dataDir, workDir, flags = []) {
  const t0 = performance.now();
  const server = await startOurs({ dataDir, workDir, storageFlags: flags });
  server.workDir = workDir;
  server.startupSeconds = (performance.now() - t0) / 1000;
  server.settledSeconds = await settle(server.pids[0]);
  return server;
}

async function packagesPart(levels, root) {
  const dataDir = path.join(root, 'packages-data');
  const rows = [];
  // A data directory kept from an earlier run (--data) is topped up, not seeded again.
  const marker = path.join(dataDir, 'scaling-seeded.json');
  let seeded = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')).packages : 0;
  let token;
  const { oneWord, fragment } = queries(prng(7));
  const searchPath = (q) => `/-/v1/search?text=${encodeURIComponent(q)}&size=20&from=0`;
  for (const level of levels) {
    log(`\n${level} packages`);
    if (level > seeded) {
      await seedStore(dataDir, seeded, level);
      seeded = level;
      writeFileSync(marker, JSON.stringify({ packages: seeded }));
    }
    const server = await startTimed(dataDir, root, ['--search-cache', '0']);
    try {
      const idle = memoryMiB(server.pids[0]);
      log(
        `  start-up ${server.startupSeconds.toFixed(1)} s, background work ${server.settledSeconds.toFixed(0)} s, RSS ${idle.rss.toFixed(0)} MiB (peak ${idle.peak.toFixed(0)})`,
      );
      token ??= await login(server.url);
      if ((await request(`${server.url}/${SPECIAL.doc20}`)).status === 404) {
        for (let v = 0; v < 20; v++) {
          const manifest = manifestOf(
            { name: SPECIAL.doc20, description: 'twenty versions', keywords: ['bench'], author: 'Bench' },
            versionOf(v),
          );
          await publish(
            server.url,
            token,
            publishBody(manifest, tarballWith(manifest, randomPayload(4096)), '# doc\n'),
            SPECIAL.doc20,
          );
        }
      }
      const names = [...storedCorpus(level, 1, (name) => ({ name }))].map((p) => `/${p.name}`);
      const row = {
        packages: level,
        startupSeconds: round(server.startupSeconds),
        backgroundSeconds: Math.round(server.settledSeconds),
        idleRssMiB: Math.round(idle.rss),
      };
      row.document = summary(await wrk(server, 'doc20', [`/${SPECIAL.doc20}`]));
      row.notFound = summary(await wrk(server, 'notfound', ['/com.bench.does-not-exist'], {}, 404));
      row.tarball = summary(await wrk(server, 'tarball', [`/${SPECIAL.doc20}/-/${SPECIAL.doc20}-1.0.0.tgz`]));
      row.searchWord = summary(await wrk(server, 'search-word', oneWord.map(searchPath)));
      row.searchFragment = summary(await wrk(server, 'search-fragment', fragment.map(searchPath)));
      row.documentsAll = summary(await wrk(server, 'all', names, { accept: ABBREVIATED_ACCEPT, 'accept-encoding': 'gzip' }));
      const pub = await runPublishLoad({
        baseUrl: server.url,
        token,
        seconds: DURATION,
        scope: `com.scalepub.${Date.now().toString(36)}.l${level}`,
      });
      if (pub.badStatus > 0) throw new Error(`publish failed: ${pub.firstError}`);
      row.publish = summary(pub);
      const after = memoryMiB(server.pids[0]);
      row.rssAfterMiB = Math.round(after.rss);
      row.peakRssMiB = Math.round(after.peak);
      rows.push(row);
      log(`  ${JSON.stringify(row)}`);
    } finally {
      await server.stop();
    }
  }
  return rows;
}

async function versionsPart(levels, root) {
  const dataDir = path.join(root, 'versions-data');
  const server = await startTimed(dataDir, root);
  const rows = [];
  try {
    const token = await login(server.url);
    const name = 'com.bench.many-versions';
    const spec = {
      name,
      description: 'A package with very many versions: how its document, publish and reads scale.',
      keywords: ['bench', 'versions'],
      author: 'Bench <bench@example.com>',
      dependencies: { 'com.bench.dep-a': '1.0.0', 'com.bench.dep-b': '2.1.0' },
    };
    const payload = randomPayload(4096);
    let published = 0;
    for (const level of levels) {
      const started = performance.now();
      const latencies = [];
      while (published < level) {
        const manifest = manifestOf(spec, `1.0.${published}`);
        const t0 = performance.now();
        await publish(server.url, token, publishBody(manifest, tarballWith(manifest, payload), `# ${name}\n`), name);
        latencies.push(performance.now() - t0);
        published++;
      }
      const last = latencies.slice(-20).sort((a, b) => a - b);
      const doc = await request(`${server.url}/${name}`);
      const row = {
        versions: level,
        documentKiB: Math.round(doc.body.length / 1024),
        publishMs: round(last[Math.floor(last.length / 2)] ?? NaN),
        publishSeconds: round((performance.now() - started) / 1000),
      };
      row.full = summary(await wrk(server, `full-${level}`, [`/${name}`]));
      row.gzip = summary(await wrk(server, `gzip-${level}`, [`/${name}`], { 'accept-encoding': 'gzip' }));
      row.abbreviated = summary(await wrk(server, `abbr-${level}`, [`/${name}`], { accept: ABBREVIATED_ACCEPT }));
      row.versionRecord = summary(await wrk(server, `record-${level}`, [`/${name}/1.0.0`]));
      row.tarball = summary(await wrk(server, `tarball-${level}`, [`/${name}/-/${name}-1.0.0.tgz`]));
      const memory = memoryMiB(server.pids[0]);
      row.rssMiB = Math.round(memory.rss);
      row.peakRssMiB = Math.round(memory.peak);
      rows.push(row);
      log(`  ${JSON.stringify(row)}`);
    }
  } finally {
    await server.stop();
  }
  return rows;
}

async function main() {
  checkWrk();
  const root = args.data ? path.resolve(args.data) : mkdtempSync(path.join(os.tmpdir(), 'pkg-registry-scaling-'));
  mkdirSync(root, { recursive: true });
  const started = new Date();
  const report = { date: started.toISOString(), cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version };
  try {
    if (args.part !== 'versions') {
      report.packages = await packagesPart(args.levels.split(',').map(Number), root);
      log(
        `\n${formatRows(report.packages, {
          packages: (r) => r.packages,
          'start-up s': (r) => r.startupSeconds,
          'background s': (r) => r.backgroundSeconds,
          'idle RSS': (r) => r.idleRssMiB,
          'document req/s (p99 ms)': (r) => `${r.document.rps} (${r.document.p99})`,
          '404 req/s (p99)': (r) => `${r.notFound.rps} (${r.notFound.p99})`,
          'tarball req/s (p99)': (r) => `${r.tarball.rps} (${r.tarball.p99})`,
          'search word req/s (p50/p99)': (r) => `${r.searchWord.rps} (${r.searchWord.p50}/${r.searchWord.p99})`,
          'search fragment req/s (p50/p99)': (r) => `${r.searchFragment.rps} (${r.searchFragment.p50}/${r.searchFragment.p99})`,
          'all documents req/s (p99)': (r) => `${r.documentsAll.rps} (${r.documentsAll.p99})`,
          'publish/s (p99)': (r) => `${r.publish.rps} (${r.publish.p99})`,
          'RSS after': (r) => r.rssAfterMiB,
          'peak RSS': (r) => r.peakRssMiB,
        })}`,
      );
    }
    if (args.part !== 'packages') {
      log('\none package, growing');
      report.versions = await versionsPart(args['version-levels'].split(',').map(Number), root);
      log(
        `\n${formatRows(report.versions, {
          versions: (r) => r.versions,
          'document KiB': (r) => r.documentKiB,
          'publish ms (median of last 20)': (r) => r.publishMs,
          'full req/s (p99)': (r) => `${r.full.rps} (${r.full.p99})`,
          'gzip req/s (p99)': (r) => `${r.gzip.rps} (${r.gzip.p99})`,
          'abbreviated req/s (p99)': (r) => `${r.abbreviated.rps} (${r.abbreviated.p99})`,
          'version record req/s (p99)': (r) => `${r.versionRecord.rps} (${r.versionRecord.p99})`,
          'tarball req/s (p99)': (r) => `${r.tarball.rps} (${r.tarball.p99})`,
          RSS: (r) => r.rssMiB,
          'peak RSS': (r) => r.peakRssMiB,
        })}`,
      );
    }
    const out = args.json ?? path.join(repoRoot, 'bench/results', `scaling-${started.toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
    log(`\nresults written to ${path.relative(process.cwd(), out)}`);
  } finally {
    if (!args.keep && !args.data) rmSync(root, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`scaling failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
