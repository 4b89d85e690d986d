// The large-registry scenario (issue 29): a registry of many packages (100,000 in the full
// form), seeded through the store (registry-seed.js), read with a Zipf popularity (s = 1) whose
// working set is several times the document cache, beside a small registry (1,000 packages)
// read the same way: full and abbreviated documents, tarballs and search, against the ceiling;
// then cold document reads (never read since start) against cached ones, one at a time.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { corpusPackages, prng } from './corpus.js';
import { request } from './http.js';
import { cpuSeconds, memoryMiB, settle } from './process-stats.js';
import { login } from './seed.js';
import { seedFingerprint, seedThroughStore, verifySeed } from './registry-seed.js';
import { startCeiling, startOurs } from './targets.js';
import { ABBREVIATED_ACCEPT, searchPaths } from './workloads.js';
import { runWrk, writeWrkScript } from './wrk.js';

/** `count` draws of package ranks 0…n−1 with P(rank r) ∝ 1/(r+1)^s. */
function zipfDraws(n, count, s, random) {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) cumulative[r] = sum += 1 / Math.pow(r + 1, s);
  return Array.from({ length: count }, () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  });
}

/**
 * Popularity: ranks are dealt to packages in a shuffled order, so that the popular packages are
 * not the first ones written. Returns the request order of package names and the names never drawn.
 */
export function popularity(names, count, s = 1) {
  const random = prng(29);
  const order = names.slice();
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const drawn = zipfDraws(order.length, count, s, random).map((rank) => order[rank]);
  const seen = new Set(drawn);
  return { drawn, unread: order.filter((name) => !seen.has(name)) };
}

/** The workloads of one registry: paths in the Zipf order, headers as npm sends them. */
function workloadsOf(drawn) {
  return [
    { id: 'full', label: 'full document', paths: drawn.map((n) => `/${n}`) },
    {
      id: 'abbreviated',
      label: 'abbreviated document, gzip (npm install)',
      paths: drawn.map((n) => `/${n}`),
      headers: { accept: ABBREVIATED_ACCEPT, 'accept-encoding': 'gzip' },
    },
    { id: 'tarball', label: 'tarball (4 KiB), version 1.0.0', paths: drawn.map((n) => `/${n}/-/${n}-1.0.0.tgz`) },
    { id: 'search', label: 'search, 200 one-word queries in turn', paths: searchPaths() },
  ];
}

const HOP_BY_HOP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

async function capture(url, workload) {
  const responses = {};
  for (const p of new Set(workload.paths)) {
    const res = await request(url + p, { headers: workload.headers ?? {} });
    if (res.status !== 200) throw new Error(`${workload.id}: GET ${p} answered ${res.status}`);
    const headers = [];
    for (let i = 0; i < res.rawHeaders.length; i += 2) {
      if (!HOP_BY_HOP.has(res.rawHeaders[i].toLowerCase())) headers.push(res.rawHeaders[i], res.rawHeaders[i + 1]);
    }
    if (res.headers['content-length'] === undefined) headers.push('Content-Length', String(res.body.length));
    responses[`GET ${p}`] = { status: res.status, headers, body: res.body.toString('base64') };
  }
  return { responses };
}

async function measure(target, workload, seconds, workDir, connections) {
  const pid = target.pids[0];
  const before = cpuSeconds(pid);
  const script = writeWrkScript(workDir, `large-${workload.id}-${target.name}`, {
    headers: workload.headers ?? {},
    paths: workload.paths,
  });
  const result = await runWrk({ baseUrl: target.url, script, firstPath: workload.paths[0], seconds, connections });
  const cpu = cpuSeconds(pid) - before;
  const memory = memoryMiB(pid);
  return {
    ...result,
    cpuUs: result.requests > 0 ? (cpu / result.requests) * 1e6 : NaN,
    rssMiB: memory.rss,
    peakRssMiB: memory.peak,
  };
}

const median = (values) => {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};
const percentile = (values, p) => {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/**
 * One document at a time on one connection, as a single client sees it: `names` read once each
 * (cold: never read since the server started) or one name `count` times (cached).
 */
async function sequentialReads(target, paths, headers) {
  const pid = target.pids[0];
  const cpuBefore = cpuSeconds(pid);
  const ms = [];
  for (const p of paths) {
    const t0 = performance.now();
    const res = await request(target.url + p, { headers });
    ms.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`GET ${p} answered ${res.status}`);
  }
  const cpu = cpuSeconds(pid) - cpuBefore;
  return { requests: paths.length, p50: median(ms), p99: percentile(ms, 99), cpuUs: (cpu / paths.length) * 1e6 };
}

/**
 * Where a registry of `packages` lives: a data directory (the embedded default), or with
 * `postgres` a schema of that database and a tarball directory; kept under `dataRoot` and
 * reused by later runs.
 */
function registryPlace({ dataRoot, packages, versions, tarballSize, postgres }) {
  const id = `${packages}x${versions}-${tarballSize}`;
  if (!postgres) return { mode: 'embedded', dir: path.join(dataRoot, `large-${id}`), flags: {}, serveFlags: [] };
  const schema = `bench_large_${id.replace(/[^a-z0-9]/g, '_')}`;
  const url = new URL(postgres);
  url.searchParams.set('schema', schema);
  const dir = path.join(dataRoot, `large-pg-${id}`);
  const storage = path.join(dir, 'tarballs');
  return {
    mode: 'postgres',
    dir,
    schema,
    postgres,
    flags: { database: url.toString(), storage },
    serveFlags: ['--database', url.toString(), '--storage', storage],
  };
}

async function dropSchema(postgres, schema) {
  // `pg` is the benchmark's own dependency (bench/package.json).
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: postgres });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** The seeded registry at `place` (seeded now unless seeded before with the same parameters). */
async function seededRegistry({ place, packages, versions, tarballSize, log }) {
  const dir = place.dir;
  // `seeder` names the seeding's version: 2 analyzes the store at the end, which a registry
  // seeded before lacks on a PostgreSQL server without autovacuum.
  const parameters = { packages, versions, tarballSize, seeder: 2, ...(place.schema ? { schema: place.schema } : {}) };
  const marker = path.join(dir, 'bench-large-seed.json');
  if (existsSync(marker)) {
    const kept = JSON.parse(readFileSync(marker, 'utf8'));
    if (kept.fingerprint === seedFingerprint(parameters)) {
      log(`  reusing the ${packages}-package registry seeded before (${kept.seconds.toFixed(0)} s to seed)`);
      return { names: [...corpusPackages(packages)].map((s) => s.name), seconds: kept.seconds, reused: true };
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (place.schema) await dropSchema(place.postgres, place.schema);
  log(`  seeding ${packages} packages × ${versions} versions through the store (${place.mode})…`);
  const seeded = await seedThroughStore({
    flags: { data: dir, ...place.flags },
    packages,
    versions,
    tarballSize,
    // PostgreSQL takes writers in parallel; the seeding process's CPU is then what bounds it.
    processes: place.schema ? 2 : 1,
    log,
  });
  log(`  seeded in ${seeded.seconds.toFixed(1)} s (${Math.round(packages / seeded.seconds)} packages/s)`);
  writeFileSync(marker, JSON.stringify({ fingerprint: seedFingerprint(parameters), parameters, seconds: seeded.seconds }));
  return { ...seeded, reused: false };
}

/**
 * Runs the scenario for each registry size in `sizes` (the small one first): seeds or reuses
 * its data directory under `dataRoot`, verifies a seeded sample against API publishes once, and
 * measures every workload against the ceiling in alternating rounds.
 */
export async function runLargeRegistry({
  sizes,
  versions = 2,
  tarballSize = 4096,
  draws = 100_000,
  duration = 10,
  rounds = 2,
  warmup = 5,
  connections = 50,
  coldReads = 2000,
  dataRoot,
  workDir,
  asInstalled = false,
  embedded = true,
  postgres,
  /** Which of full, abbreviated, tarball, search and cold (the one-at-a-time reads) to run; all when undefined. */
  only,
  log,
}) {
  const report = { sizes: {}, verified: undefined };
  const wanted = (id) => only === undefined || only.includes(id);
  const modes = [...(embedded ? [undefined] : []), ...(postgres ? [postgres] : [])];
  for (const database of modes)
    for (const packages of sizes) {
      const place = registryPlace({ dataRoot, packages, versions, tarballSize, postgres: database });
      const key = place.mode === 'embedded' ? String(packages) : `${packages} PostgreSQL`;
      log(`\nlarge-registry: ${packages} packages × ${versions} versions (${place.mode})`);
      const seeded = await seededRegistry({ place, packages, versions, tarballSize, log });
      const ours = await startOurs({
        name: `ours-${place.mode}-${packages}`,
        dataDir: place.dir,
        workDir,
        storageFlags: place.serveFlags,
        asInstalled,
      });
      const ceiling = await startCeiling({ workDir });
      try {
        // Its start-up sweep walks every package's tarball directory: ten minutes at most on a
        // loaded machine at 100,000 packages, and measured as latency if not waited for.
        const settled = await settle(ours.pids[0], 900_000);
        log(`  our server idle ${settled.toFixed(0)} s after it listened`);
        if (report.verified === undefined) {
          // The seeding against the publish API: the same first packages, published through HTTP.
          const api = await startOurs({ name: 'api-published', dataDir: path.join(workDir, 'api-published'), workDir });
          try {
            const compared = await verifySeed({
              apiUrl: api.url,
              apiToken: await login(api.url),
              seededUrl: ours.url,
              sample: 10,
              versions,
              tarballSize,
            });
            report.verified = compared;
            log(
              `  seeded documents equal to API-published ones: ${compared} documents (full and abbreviated), signatures verified`,
            );
          } finally {
            await api.stop();
          }
        }
        const { drawn, unread } = popularity(seeded.names, draws);
        const distinct = new Set(drawn).size;
        log(`  ${draws} Zipf draws (s = 1) over ${packages} packages: ${distinct} distinct`);
        const results = { distinct, seedSeconds: seeded.seconds, workloads: {} };
        for (const workload of workloadsOf(drawn).filter((w) => wanted(w.id))) {
          const started = performance.now();
          await ceiling.load(`large-${workload.id}`, await capture(ours.url, workload));
          log(`  ${workload.id}: ${workload.label} (captured in ${((performance.now() - started) / 1000).toFixed(0)} s)`);
          const runs = { ceiling: [], ours: [] };
          for (let round = 1; round <= rounds; round++) {
            for (const target of [ceiling, ours]) {
              if (round === 1 && warmup > 0) await measure(target, workload, warmup, workDir, connections);
              const run = await measure(target, workload, duration, workDir, connections);
              runs[target === ceiling ? 'ceiling' : 'ours'].push(run);
              log(
                `    round ${round} ${(target === ceiling ? 'ceiling' : 'ours').padEnd(8)} ${run.rps.toFixed(0).padStart(7)} req/s  p50 ${run.p50.toFixed(2)} ms  p99 ${run.p99.toFixed(2)} ms  CPU ${run.cpuUs.toFixed(0)} µs/req  RSS ${run.rssMiB.toFixed(0)} MiB` +
                  (run.badStatus + run.socketErrors > 0 ? `  errors ${run.badStatus + run.socketErrors}` : ''),
              );
            }
          }
          results.workloads[workload.id] = summarize(runs);
        }
        // Cold: documents no workload read (so not in the cache since this server started).
        const cold = unread.slice(0, coldReads).map((n) => `/${n}`);
        const hot = Array.from({ length: cold.length }, () => `/${drawn[0]}`);
        const headers = { accept: ABBREVIATED_ACCEPT, 'accept-encoding': 'gzip' };
        // A small registry read 100,000 times leaves a handful unread: too few to tell anything.
        if (cold.length >= 100 && wanted('cold')) {
          results.cold = await sequentialReads(ours, cold, headers);
          results.cached = await sequentialReads(ours, hot, headers);
          log(
            `  one at a time, abbreviated + gzip: cold ${results.cold.p50.toFixed(2)} ms p50 / ${results.cold.p99.toFixed(2)} ms p99 / ${results.cold.cpuUs.toFixed(0)} µs CPU, ` +
              `cached ${results.cached.p50.toFixed(2)} / ${results.cached.p99.toFixed(2)} / ${results.cached.cpuUs.toFixed(0)} µs (${cold.length} each)`,
          );
        }
        results.cacheStats = await cacheStats(ours.url);
        report.sizes[key] = results;
      } finally {
        await ceiling.stop();
        await ours.stop();
      }
    }
  return report;
}

/** The document cache's counters (`/-/metrics`). */
async function cacheStats(url) {
  const text = (await request(`${url}/-/metrics`)).body.toString();
  const value = (pattern) => Number(new RegExp(`^${pattern} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    hits: value('pkg_registry_document_cache_lookups_total\\{result="hit"\\}'),
    misses: value('pkg_registry_document_cache_lookups_total\\{result="miss"\\}'),
    rejected: value('pkg_registry_document_cache_rejected_total'),
  };
}

function summarize(runs) {
  const pick = (list, key) => median(list.map((r) => r[key]));
  const share = median(runs.ours.map((r, i) => (r.rps / runs.ceiling[i].rps) * 100));
  const row = (list) => ({
    rps: pick(list, 'rps'),
    p50: pick(list, 'p50'),
    p99: pick(list, 'p99'),
    cpuUs: pick(list, 'cpuUs'),
    rssMiB: Math.max(...list.map((r) => r.rssMiB)),
    peakRssMiB: Math.max(...list.map((r) => r.peakRssMiB)),
    errors: list.reduce((sum, r) => sum + r.badStatus + r.socketErrors, 0),
  });
  return { ceiling: row(runs.ceiling), ours: row(runs.ours), share };
}

/** The scenario's table: one row per registry size and workload, then the cold and cached reads. */
export function formatLargeRegistry(report) {
  const keys = Object.keys(report.sizes);
  const modeOf = (key) => key.replace(/^\d+\s*/, '');
  /** The smallest registry of the same database: what flatness compares with. */
  const smallest = (key) =>
    report.sizes[keys.filter((k) => modeOf(k) === modeOf(key)).sort((a, b) => parseInt(a, 10) - parseInt(b, 10))[0]];
  const lines = [
    '| packages | workload | ours req/s | % ceiling | p50 ms | p99 ms | p99 vs smallest | CPU µs/req | ceiling µs/req | RSS MiB |',
    '|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const key of keys) {
    for (const [id, w] of Object.entries(report.sizes[key].workloads)) {
      const base = smallest(key).workloads[id]?.ours.p99;
      lines.push(
        `| ${key} | ${id} | ${w.ours.rps.toFixed(0)} | ${w.share.toFixed(1)} | ${w.ours.p50.toFixed(2)} | ${w.ours.p99.toFixed(2)} | ${base ? `${(w.ours.p99 / base).toFixed(2)}×` : ''} | ${w.ours.cpuUs.toFixed(0)} | ${w.ceiling.cpuUs.toFixed(0)} | ${w.ours.peakRssMiB.toFixed(0)} |`,
      );
    }
  }
  lines.push(
    '',
    '| packages | distinct read | cold p50 ms | cold p99 ms | cold CPU µs | cached p50 ms | cached p99 ms | cached CPU µs | cold ÷ cached (p50) | cache hits / misses / rejected |',
  );
  lines.push('|:--|--:|--:|--:|--:|--:|--:|--:|--:|:--|');
  for (const key of keys) {
    const r = report.sizes[key];
    if (!r.cold) continue;
    lines.push(
      `| ${key} | ${r.distinct} | ${r.cold.p50.toFixed(2)} | ${r.cold.p99.toFixed(2)} | ${r.cold.cpuUs.toFixed(0)} | ${r.cached.p50.toFixed(2)} | ${r.cached.p99.toFixed(2)} | ${r.cached.cpuUs.toFixed(0)} | ${(r.cold.p50 / r.cached.p50).toFixed(2)}× | ${r.cacheStats.hits} / ${r.cacheStats.misses} / ${r.cacheStats.rejected} |`,
    );
  }
  return lines.join('\n');
}
