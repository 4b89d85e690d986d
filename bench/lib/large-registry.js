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

/**
 * Every distinct request of `workload`, answered by our server, as the ceiling replays it.
 * `concurrency` requests at a time: one at a time, a round trip between two processes costs
 * milliseconds of waiting on this machine, and a 100,000-package registry has about 25,000
 * distinct requests per workload. The answers do not depend on the order they are asked in.
 */
async function capture(url, workload, concurrency = 8) {
  const paths = [...new Set(workload.paths)];
  const answers = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < paths.length; i = next++) {
      const p = paths[i];
      const res = await request(url + p, { headers: workload.headers ?? {} });
      if (res.status !== 200) throw new Error(`${workload.id}: GET ${p} answered ${res.status}`);
      const headers = [];
      for (let h = 0; h < res.rawHeaders.length; h += 2) {
        if (!HOP_BY_HOP.has(res.rawHeaders[h].toLowerCase())) headers.push(res.rawHeaders[h], res.rawHeaders[h + 1]);
      }
      if (res.headers['content-length'] === undefined) headers.push('Content-Length', String(res.body.length));
      answers[i] = { status: res.status, headers, body: res.body.toString('base64') };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const responses = {};
  paths.forEach((p, i) => (responses[`GET ${p}`] = answers[i]));
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

/**
 * The seeded registries at `places` (one size, one place per database): those seeded before with
 * the same parameters are reused, the others seeded now, together (each package's tarballs made
 * once for all of them). Returns, for each place's directory, the names and the seeding's time.
 */
async function seededRegistries({ places, packages, versions, tarballSize, log }) {
  const names = () => [...corpusPackages(packages)].map((s) => s.name);
  const seeded = new Map();
  const toSeed = [];
  // Each package's forms rendered for the address our servers run under, as the server keeps
  // them after each publish (docs/architecture.md, "Rendered documents"); a registry seeded
  // before the server did that gets them in a pass of their own (its marker below).
  const rendersMarker = (place) => path.join(place.dir, 'bench-large-renders.json');
  const rendered = (place) =>
    existsSync(rendersMarker(place)) && JSON.parse(readFileSync(rendersMarker(place), 'utf8')).baseUrl === PUBLIC_URL;
  for (const place of places) {
    // `seeder` names the seeding's version: 2 analyzes the store at the end, which a registry
    // seeded before lacks on a PostgreSQL server without autovacuum.
    const parameters = { packages, versions, tarballSize, seeder: 2, ...(place.schema ? { schema: place.schema } : {}) };
    const marker = path.join(place.dir, 'bench-large-seed.json');
    const kept = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : undefined;
    if (kept?.fingerprint === seedFingerprint(parameters)) {
      log(`  reusing the ${packages}-package registry seeded before (${place.mode}; ${kept.seconds.toFixed(0)} s to seed)`);
      seeded.set(place.dir, { names: names(), seconds: kept.seconds, reused: true });
    } else toSeed.push({ place, parameters, marker });
  }
  const toRender = places.filter((place) => seeded.has(place.dir) && !rendered(place));
  if (toRender.length > 0) {
    const modes = toRender.map((place) => place.mode).join(' and ');
    log(`  rendering and keeping the documents of the ${packages}-package registry seeded before (${modes})…`);
    const pass = await seedThroughStore({
      stores: toRender.map((place) => ({ data: place.dir, ...place.flags })),
      packages,
      versions,
      tarballSize,
      processes: 2,
      renderBaseUrl: PUBLIC_URL,
      rendersOnly: true,
      log,
    });
    log(`  rendered in ${pass.seconds.toFixed(1)} s`);
    for (const place of toRender)
      writeFileSync(rendersMarker(place), JSON.stringify({ baseUrl: PUBLIC_URL, seconds: pass.seconds }));
  }
  if (toSeed.length === 0) return seeded;
  for (const { place } of toSeed) {
    rmSync(place.dir, { recursive: true, force: true });
    mkdirSync(place.dir, { recursive: true });
    if (place.schema) await dropSchema(place.postgres, place.schema);
  }
  const modes = toSeed.map(({ place }) => place.mode).join(' and ');
  log(`  seeding ${packages} packages × ${versions} versions through the store (${modes})…`);
  const result = await seedThroughStore({
    stores: toSeed.map(({ place }) => ({ data: place.dir, ...place.flags })),
    packages,
    versions,
    tarballSize,
    // The seeding process's CPU is what bounds it: two keep both cores busy while either waits
    // on PostgreSQL or on SQLite's one writer.
    processes: 2,
    renderBaseUrl: PUBLIC_URL,
    log,
  });
  log(`  seeded in ${result.seconds.toFixed(1)} s (${Math.round(packages / result.seconds)} packages/s, ${modes})`);
  for (const { place, parameters, marker } of toSeed) {
    writeFileSync(
      marker,
      JSON.stringify({ fingerprint: seedFingerprint(parameters), parameters, seconds: result.seconds, modes }),
    );
    writeFileSync(rendersMarker(place), JSON.stringify({ baseUrl: PUBLIC_URL, seconds: result.seconds }));
    seeded.set(place.dir, { ...result, reused: false });
  }
  return seeded;
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
  /**
   * How many of the packages no workload read the cold reads skip: a run on the data directory
   * of an earlier one finds those it read cold with kept renders, and reads others never read.
   */
  coldFrom = 0,
  dataRoot,
  workDir,
  asInstalled = false,
  embedded = true,
  postgres,
  /** Which of full, abbreviated, tarball, search and cold (the one-at-a-time reads) to run; all when undefined. */
  only,
  log,
}) {
  const report = { sizes: {}, verified: {}, phases: [] };
  /** Wall time of each step, in order: where a run's minutes go (the last table of the output). */
  const phase = async (registry, step, run) => {
    const t0 = performance.now();
    try {
      return await run();
    } finally {
      report.phases.push({ registry, step, seconds: (performance.now() - t0) / 1000 });
    }
  };
  const wanted = (id) => only === undefined || only.includes(id);
  const modes = [...(embedded ? [undefined] : []), ...(postgres ? [postgres] : [])];
  const placeOf = (packages, database) => registryPlace({ dataRoot, packages, versions, tarballSize, postgres: database });
  // Every registry is seeded first, each size once for all databases.
  const seededAt = new Map();
  for (const packages of sizes) {
    const places = modes.map((database) => placeOf(packages, database));
    const label = `${packages}: ${places.map((p) => p.mode).join(' + ')}`;
    log(`\nlarge-registry: ${packages} packages × ${versions} versions (${places.map((p) => p.mode).join(', ')})`);
    const seeded = await phase(label, 'seed', () => seededRegistries({ places, packages, versions, tarballSize, log }));
    for (const [dir, result] of seeded) seededAt.set(dir, result);
  }
  for (const database of modes)
    for (const packages of sizes) {
      const place = placeOf(packages, database);
      const key = place.mode === 'embedded' ? String(packages) : `${packages} PostgreSQL`;
      log(`\nlarge-registry: ${packages} packages × ${versions} versions (${place.mode})`);
      const seeded = seededAt.get(place.dir);
      const startedAt = performance.now();
      const ours = await startOurs({
        name: `ours-${place.mode}-${packages}`,
        dataDir: place.dir,
        workDir,
        storageFlags: place.serveFlags,
        extraFlags: PUBLIC_URL_FLAGS,
        asInstalled,
      });
      const ceiling = await startCeiling({ workDir });
      const listenedAt = performance.now();
      report.phases.push({ registry: key, step: 'start and settle', seconds: (listenedAt - startedAt) / 1000 });
      // Its start-up sweep walks every package's tarball directory and asks the store for each
      // package's versions: minutes at 100,000 packages on a loaded machine, and measured as
      // latency if not waited for. The verification and the first capture only record answers,
      // which the sweep does not change, so they run beside it; nothing is measured before the
      // server is idle.
      let idle = false;
      const awaitIdle = async () => {
        if (idle) return;
        const t0 = performance.now();
        await settle(ours.pids[0], 900_000);
        idle = true;
        report.phases.push({ registry: key, step: 'start and settle', seconds: (performance.now() - t0) / 1000 });
        log(`  our server idle ${((performance.now() - listenedAt) / 1000).toFixed(0)} s after it listened`);
      };
      try {
        // Once per database: the first registry seeded into it.
        if (report.verified[place.mode] === undefined) {
          const verifyStarted = performance.now();
          // The seeding against the publish API: the same first packages, published through HTTP.
          const api = await startOurs({
            name: `api-published-${place.mode}`,
            dataDir: path.join(workDir, `api-published-${place.mode}`),
            workDir,
            extraFlags: PUBLIC_URL_FLAGS,
          });
          try {
            const compared = await verifySeed({
              apiUrl: api.url,
              apiToken: await login(api.url),
              seededUrl: ours.url,
              sample: 10,
              versions,
              tarballSize,
            });
            report.verified[place.mode] = compared;
            report.phases.push({ registry: key, step: 'verify', seconds: (performance.now() - verifyStarted) / 1000 });
            log(
              `  seeded documents (${place.mode}) equal to API-published ones: ${compared} documents (full and abbreviated), signatures verified`,
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
          await phase(key, `capture ${workload.id}`, async () =>
            ceiling.load(`large-${workload.id}`, await capture(ours.url, workload)),
          );
          log(`  ${workload.id}: ${workload.label} (captured in ${((performance.now() - started) / 1000).toFixed(0)} s)`);
          await awaitIdle();
          const runs = { ceiling: [], ours: [] };
          for (let round = 1; round <= rounds; round++) {
            for (const target of [ceiling, ours]) {
              if (round === 1 && warmup > 0)
                await phase(key, `warm-up ${workload.id}`, () => measure(target, workload, warmup, workDir, connections));
              const run = await phase(key, `rounds ${workload.id}`, () =>
                measure(target, workload, duration, workDir, connections),
              );
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
        const cold = unread.slice(coldFrom, coldFrom + coldReads).map((n) => `/${n}`);
        const hot = Array.from({ length: cold.length }, () => `/${drawn[0]}`);
        const headers = { accept: ABBREVIATED_ACCEPT, 'accept-encoding': 'gzip' };
        // A small registry read 100,000 times leaves a handful unread: too few to tell anything.
        if (cold.length >= 100 && wanted('cold')) {
          await awaitIdle();
          const beforeCold = await cacheStats(ours.url);
          results.cold = await phase(key, 'cold', () => sequentialReads(ours, cold, headers));
          // A cold read answers the render the database kept (a package read since its last
          // write, by any node or an earlier run) or renders the document (never read since).
          const afterCold = await cacheStats(ours.url);
          results.cold.rendersRead = afterCold.rendersRead - beforeCold.rendersRead;
          results.cold.rendered = afterCold.rendered - beforeCold.rendered;
          results.cached = await phase(key, 'cached', () => sequentialReads(ours, hot, headers));
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

/**
 * The address an operator gives a registry (`publicUrl`; here the one `npm start` serves on).
 * Each run starts our server on a new port: without a fixed public URL every document would
 * carry another tarball address each run, and the renders an earlier run kept could never be
 * answered, which no deployment with a stable address sees.
 */
const PUBLIC_URL = 'http://127.0.0.1:4873';
const PUBLIC_URL_FLAGS = ['--public-url', PUBLIC_URL];

/** The document cache's counters (`/-/metrics`). */
async function cacheStats(url) {
  const text = (await request(`${url}/-/metrics`)).body.toString();
  const value = (pattern) => Number(new RegExp(`^${pattern} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    hits: value('pkg_registry_document_cache_lookups_total\\{result="hit"\\}'),
    misses: value('pkg_registry_document_cache_lookups_total\\{result="miss"\\}'),
    rejected: value('pkg_registry_document_cache_rejected_total'),
    rendersRead: value('pkg_registry_document_renders_total\\{result="read"\\}'),
    rendered: value('pkg_registry_document_renders_total\\{result="rendered"\\}'),
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
    '| packages | distinct read | cold reads: kept render / rendered | cold p50 ms | cold p99 ms | cold CPU µs | cached p50 ms | cached p99 ms | cached CPU µs | cold ÷ cached (p50) | cache hits / misses / rejected |',
  );
  lines.push('|:--|--:|:--|--:|--:|--:|--:|--:|--:|--:|:--|');
  for (const key of keys) {
    const r = report.sizes[key];
    if (!r.cold) continue;
    lines.push(
      `| ${key} | ${r.distinct} | ${r.cold.rendersRead ?? '?'} / ${r.cold.rendered ?? '?'} | ${r.cold.p50.toFixed(2)} | ${r.cold.p99.toFixed(2)} | ${r.cold.cpuUs.toFixed(0)} | ${r.cached.p50.toFixed(2)} | ${r.cached.p99.toFixed(2)} | ${r.cached.cpuUs.toFixed(0)} | ${(r.cold.p50 / r.cached.p50).toFixed(2)}× | ${r.cacheStats.hits} / ${r.cacheStats.misses} / ${r.cacheStats.rejected} |`,
    );
  }
  if (report.phases?.length) lines.push('', formatPhases(report.phases));
  return lines.join('\n');
}

const PHASE_COLUMNS = ['seed', 'start and settle', 'verify', 'capture', 'warm-up', 'rounds', 'cold'];

/** Seconds of wall time per registry and step (captures, warm-ups and rounds summed over the workloads). */
export function formatPhases(phases) {
  const column = (step) =>
    PHASE_COLUMNS.find((c) => step === c || step.startsWith(`${c} `)) ?? (step === 'cached' ? 'cold' : step);
  const rows = new Map();
  for (const { registry, step, seconds } of phases) {
    const row = rows.get(registry) ?? rows.set(registry, {}).get(registry);
    row[column(step)] = (row[column(step)] ?? 0) + seconds;
  }
  const lines = [
    `| seconds of wall time | ${PHASE_COLUMNS.join(' | ')} | total |`,
    `|:--|${PHASE_COLUMNS.map(() => '--:').join('|')}|--:|`,
  ];
  const totals = {};
  for (const [registry, row] of rows) {
    const sum = Object.values(row).reduce((a, b) => a + b, 0);
    for (const c of PHASE_COLUMNS) totals[c] = (totals[c] ?? 0) + (row[c] ?? 0);
    lines.push(`| ${registry} | ${PHASE_COLUMNS.map((c) => (row[c] ?? 0).toFixed(0)).join(' | ')} | ${sum.toFixed(0)} |`);
  }
  const all = Object.values(totals).reduce((a, b) => a + b, 0);
  lines.push(`| all | ${PHASE_COLUMNS.map((c) => totals[c].toFixed(0)).join(' | ')} | ${all.toFixed(0)} |`);
  return lines.join('\n');
}
