#!/usr/bin/env node
// `npm run bench`: seeds a registry through the real publish API, then runs every workload of
// the table in bench/README.md with wrk against our server, the bare node:http ceiling replaying
// our exact responses, and optionally Verdaccio 6.8.0, alternating targets in rounds of a
// bounded time. Prints one table and writes JSON to bench/results/. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from './lib/http.js';
import { cpuSeconds, memoryMiB, settle } from './lib/process-stats.js';
import { runPublishLoad } from './lib/publish-load.js';
import { formatTable, tableRows } from './lib/report.js';
import { PROXIED_NAMESPACE, login, publish, seedRegistry, seedUpstream } from './lib/seed.js';
import { manifestOf, publishBody, randomPayload, tarballWith } from './lib/tarballs.js';
import {
  installVerdaccio,
  REGISTRY_NODE_ENV,
  REGISTRY_NODE_FLAGS,
  repoRoot,
  startCeiling,
  startOurs,
  startOursCluster,
  startVerdaccio,
} from './lib/targets.js';
import { benchWorkloads } from './lib/workloads.js';
import { checkWrk, runWrk, writeWrkScript } from './lib/wrk.js';
import { prepareScaleOut } from './lib/scale-out.js';
import { formatLargePackage, runLargePackage } from './lib/large-package.js';
import { formatLargeRegistry, runLargeRegistry } from './lib/large-registry.js';
import { parseFlags } from './lib/flags.js';
import { installsPart } from './lib/installs.js';

const HELP = `Usage: npm run bench -- [options]

  --packages <n>          corpus packages seeded through publish (default 10000)
  --versions <n>          versions of each corpus package (default 2)
  --tarball-size <bytes>  incompressible tarball size of corpus versions (default 4096)
  --duration <s>          seconds of each measured wrk run (default 5)
  --rounds <n>            rounds; targets alternate within a round (default 2)
  --warmup <s>            unmeasured run before each target's first round (default 1)
  --connections <n>       wrk connections (default 50; one wrk thread)
  --workloads <ids>       comma-separated subset (document-20, proxied-document, document-100,
                          document-100-gzip, abbreviated, tarball, search, not-found, whoami,
                          documents-all, publish, large-package: the large-package scenario,
                          large-registry: the large-registry scenario, both run after the table;
                          installs: the install benchmark, only when named, see bench/installs.js)
  --large-package-mb <n>  MiB of incompressible data of the large package (default 500)
  --large-registry-packages <n>  packages of the large registry (default 10000, beside one of
                          1000; 100000 is the full form, also \`node bench/large-registry.js\`)
  --as-installed          start our server as docs/operations.md tells an operator to start the
                          installed program: the \`pkg-registry\` bin itself, no node options and
                          no UV_THREADPOOL_SIZE (it starts itself again with them)
  --with-verdaccio        also measure Verdaccio ${'6.8.0'} (installed on demand into a temp dir)
  --verdaccio-packages <n> corpus packages seeded into Verdaccio, 1 version each (default 200)
  --scale-out             PostgreSQL + shared storage + Redis, one node and two nodes
  --postgres <url>        scale-out database (default $PKG_BENCH_POSTGRES, $PKG_TEST_POSTGRES or
                          postgres://postgres@127.0.0.1:5432/test); a fresh schema is used and dropped
  --redis <url>           scale-out Redis (default $PKG_BENCH_REDIS, $PKG_TEST_REDIS or redis://127.0.0.1:6379)
  --storage <dir|s3-url>  scale-out tarball store (default: a shared temporary directory)
  --quick                 small and short: 500 packages, 3 s runs, 1 round
  --profile               run our server under --cpu-prof; profiles go to bench/results/profiles/
  --data <dir>            our registry's data directory; seeded once and reused by later runs with
                          the same --packages/--versions/--tarball-size (embedded mode only)
  --keep                  keep the temporary data directory
  --no-build              do not run \`npm run build\` first
  --json <file>           where to write the JSON (default bench/results/bench-<date>.json)
`;

const args = parseFlags(
  {
    packages: { type: 'string' },
    versions: { type: 'string', default: '2' },
    'tarball-size': { type: 'string', default: '4096' },
    duration: { type: 'string' },
    rounds: { type: 'string' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    workloads: { type: 'string' },
    'large-package-mb': { type: 'string', default: '500' },
    'large-registry-packages': { type: 'string', default: '10000' },
    'as-installed': { type: 'boolean', default: false },
    'with-verdaccio': { type: 'boolean', default: false },
    'verdaccio-packages': { type: 'string', default: '200' },
    'scale-out': { type: 'boolean', default: false },
    postgres: { type: 'string' },
    redis: { type: 'string' },
    storage: { type: 'string' },
    data: { type: 'string' },
    quick: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
  HELP,
);

const int = (value, name) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got '${value}'`);
  return n;
};
const options = {
  packages: int(args.packages ?? (args.quick ? '500' : '10000'), 'packages'),
  versions: Math.max(1, int(args.versions, 'versions')),
  tarballSize: Math.max(1024, int(args['tarball-size'], 'tarball-size')),
  duration: Math.max(1, int(args.duration ?? (args.quick ? '3' : '5'), 'duration')),
  rounds: Math.max(1, int(args.rounds ?? (args.quick ? '1' : '2'), 'rounds')),
  warmup: int(args.warmup, 'warmup'),
  connections: Math.max(1, int(args.connections, 'connections')),
  verdaccioPackages: int(args['verdaccio-packages'], 'verdaccio-packages'),
};

const log = (line) => process.stdout.write(`${line}\n`);

function prepareRepository() {
  const run = (cmd, cmdArgs) => execFileSync(cmd, cmdArgs, { cwd: repoRoot, stdio: 'inherit' });
  if (!existsSync(path.join(repoRoot, 'node_modules/fastify'))) {
    log('installing the repository’s dependencies (npm ci)…');
    run('npm', ['ci', '--no-audit', '--no-fund']);
  }
  if (!args['no-build']) run('npm', ['run', '--silent', 'build']);
  if (!existsSync(path.join(repoRoot, 'packages/server/dist/main.js')))
    throw new Error('packages/server/dist is missing: run `npm run build`');
}

/** Reads one response per distinct request of a workload from our server, for the ceiling. */
async function capture(url, workload, token) {
  const responses = {};
  const expected = workload.status ?? 200;
  for (const p of new Set(workload.paths)) {
    const res = await request(url + p, { headers: headersOf(workload, token) });
    if (res.status !== expected)
      throw new Error(
        `${workload.id}: GET ${p} answered ${res.status}, expected ${expected}: ${res.body.toString().slice(0, 200)}`,
      );
    responses[`GET ${p}`] = replayable(res);
  }
  return { responses };
}

const HOP_BY_HOP = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function replayable(res) {
  const headers = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    if (!HOP_BY_HOP.has(res.rawHeaders[i].toLowerCase())) headers.push(res.rawHeaders[i], res.rawHeaders[i + 1]);
  }
  if (res.headers['content-length'] === undefined) headers.push('Content-Length', String(res.body.length));
  return { status: res.status, headers, body: res.body.toString('base64') };
}

function headersOf(workload, token) {
  return { ...(workload.headers ?? {}), ...(workload.auth ? { authorization: `Bearer ${token}` } : {}) };
}

/** One measured run of a workload against a target (every node of it). */
async function measure(target, workload, seconds, workDir, scope) {
  const before = target.pids.map(cpuSeconds);
  let result;
  if (workload.kind === 'publish') {
    const perNode = target.urls.map((url, i) =>
      runPublishLoad({
        baseUrl: url,
        token: target.token,
        seconds,
        concurrency: Math.max(1, Math.round(4 / target.urls.length)),
        scope: `${scope}.n${i}`,
      }),
    );
    result = combine(await Promise.all(perNode));
  } else {
    const script = writeWrkScript(workDir, `${workload.id}-${target.name}`, {
      headers: headersOf(workload, target.token),
      paths: workload.paths,
    });
    const connections = Math.max(1, Math.round(options.connections / target.urls.length));
    result = combine(
      await Promise.all(
        target.urls.map((baseUrl) => runWrk({ baseUrl, script, firstPath: workload.paths[0], seconds, connections })),
      ),
    );
  }
  // wrk counts every status of 400 and above as an error: where that is the expected answer, it is not one.
  if ((workload.status ?? 200) >= 400) result.badStatus = 0;
  const after = target.pids.map(cpuSeconds);
  const memory = target.pids.map(memoryMiB);
  return {
    ...result,
    cpuSeconds: after.reduce((sum, t, i) => sum + t - before[i], 0),
    rssMiB: Math.max(...memory.map((m) => m.rss)),
    peakRssMiB: Math.max(...memory.map((m) => m.peak)),
  };
}

/** Several load generators at once (one per node): counts add up; latency is the worse one's. */
function combine(results) {
  if (results.length === 1) return results[0];
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  return {
    requests,
    rps: results.reduce((sum, r) => sum + r.rps, 0),
    seconds: Math.max(...results.map((r) => r.seconds)),
    p50: results.reduce((sum, r) => sum + r.p50 * r.requests, 0) / requests,
    p90: Math.max(...results.map((r) => r.p90)),
    p99: Math.max(...results.map((r) => r.p99)),
    max: Math.max(...results.map((r) => r.max)),
    socketErrors: results.reduce((sum, r) => sum + r.socketErrors, 0),
    badStatus: results.reduce((sum, r) => sum + r.badStatus, 0),
    firstError: results.find((r) => r.firstError)?.firstError,
  };
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    model: cpus[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    kernel: os.release(),
  };
}

async function main() {
  checkWrk();
  prepareRepository();
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'pkg-registry-bench-'));
  const resultsDir = path.join(repoRoot, 'bench/results');
  const profileDir = args.profile ? path.join(workDir, 'profiles') : undefined;
  const started = new Date();
  // Names published by this run (publish workload, capture) are new even in a reused data directory.
  const runId = started.getTime().toString(36);
  const targets = [];
  /** The upstream registry of proxied-document, when that workload runs. */
  let upstream;
  let cleanupScaleOut = async () => {};
  try {
    log(
      `bench: ${options.packages} packages × ${options.versions} versions, ${options.duration} s × ${options.rounds} rounds, ${options.connections} connections, work dir ${workDir}`,
    );
    log(
      args['as-installed']
        ? 'our server: pkg-registry serve (the bin itself, no node options: as an operator starts the installed program)'
        : `our server: ${[...Object.entries(REGISTRY_NODE_ENV).map(([k, v]) => `${k}=${v}`), 'node', ...REGISTRY_NODE_FLAGS, 'pkg-registry serve'].join(' ')} (as npm start runs it)`,
    );
    const all = benchWorkloads({ corpusNames: [] });
    const wanted = args.workloads ? new Set(args.workloads.split(',').map((s) => s.trim())) : undefined;
    // The large-package scenario has servers of its own and runs after the table.
    const largePackage = !wanted || wanted.delete('large-package');
    const largeRegistry = !wanted || wanted.delete('large-registry');
    // The install benchmark (issue 29) runs only when named: it has servers and projects of its own.
    const installs = wanted?.delete('installs') ?? false;
    for (const id of wanted ?? []) if (!all.some((w) => w.id === id)) throw new Error(`unknown workload '${id}'`);
    const largePackageRun = async () => {
      const verdaccio = args['with-verdaccio'] ? await installVerdaccio(log) : undefined;
      const report = await runLargePackage({
        sizeMiB: Math.max(1, int(args['large-package-mb'], 'large-package-mb')),
        workDir,
        args,
        withVerdaccio: Boolean(verdaccio),
        verdaccioBin: verdaccio?.bin,
        log,
      });
      log(`\n${formatLargePackage(report)}`);
      const out = path.join(resultsDir, `large-package-${started.toISOString().replace(/[:.]/g, '-')}.json`);
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, JSON.stringify({ date: started.toISOString(), ...report }, null, 2) + '\n');
      log(`results written to ${path.relative(process.cwd(), out)}`);
    };
    const largeRegistryRun = async () => {
      const report = await runLargeRegistry({
        sizes: [1000, Math.max(1, int(args['large-registry-packages'], 'large-registry-packages'))],
        versions: options.versions,
        tarballSize: options.tarballSize,
        draws: 30_000,
        duration: options.duration,
        rounds: options.rounds,
        warmup: Math.max(options.warmup, 3),
        connections: options.connections,
        coldReads: 1000,
        dataRoot: args.data ? path.resolve(args.data) : path.join(workDir, 'large-registry'),
        workDir,
        asInstalled: args['as-installed'],
        // On PostgreSQL too with --scale-out (one node: the scenario measures a miss, not a cluster).
        postgres: args['scale-out']
          ? (args.postgres ??
            process.env.PKG_BENCH_POSTGRES ??
            process.env.PKG_TEST_POSTGRES ??
            'postgres://postgres@127.0.0.1:5432/test')
          : undefined,
        log,
      });
      log(`\n${formatLargeRegistry(report)}`);
      const out = path.join(resultsDir, `large-registry-${started.toISOString().replace(/[:.]/g, '-')}.json`);
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, JSON.stringify({ date: started.toISOString(), ...report }, null, 2) + '\n');
      log(`results written to ${path.relative(process.cwd(), out)}`);
    };
    const installsRun = () =>
      installsPart({
        workDir,
        resultsDir,
        started,
        // Installs are short and noisy: three rounds unless told (the table's default is two).
        rounds: args.rounds ? options.rounds : args.quick ? 1 : 3,
        engines: undefined,
        withVerdaccio: args['with-verdaccio'],
        uplink: true,
        profile: args.profile,
        log,
      });
    if (wanted && wanted.size === 0) {
      if (largeRegistry) await largeRegistryRun();
      if (largePackage) await largePackageRun();
      if (installs) await installsRun();
      return;
    }

    // proxied-document: an upstream registry (another of ours) that our server serves
    // `com.benchup.*` from, cached for the whole run (maxAge of a day: no revalidation measured).
    let uplinkFlags = [];
    if (all.some((w) => w.needsUpstream && (!wanted || wanted.has(w.id)))) {
      upstream = await startOurs({ name: 'upstream', dataDir: path.join(workDir, 'upstream-data'), workDir });
      await seedUpstream(upstream.url, await login(upstream.url), options);
      const uplinks = [{ name: 'bench-upstream', url: upstream.url, packages: [PROXIED_NAMESPACE], maxAge: 86400 }];
      uplinkFlags = ['--uplinks', JSON.stringify(uplinks)];
      log(`upstream registry for proxied-document on ${upstream.url}`);
    }
    const startEmbedded = () =>
      startOurs({
        dataDir: args.data ? path.resolve(args.data) : path.join(workDir, 'data'),
        workDir,
        extraFlags: uplinkFlags,
        cpuProfileDir: profileDir,
        asInstalled: args['as-installed'],
      });
    // Our registry: the embedded default, or the scale-out drivers with one and two nodes.
    let seedTarget;
    if (args['scale-out']) {
      const scaleOut = await prepareScaleOut({ args, workDir, log });
      cleanupScaleOut = scaleOut.cleanup;
      const common = {
        dataDir: path.join(workDir, 'data'),
        workDir,
        storageFlags: scaleOut.flags,
        extraFlags: uplinkFlags,
        env: scaleOut.env,
        cpuProfileDir: profileDir,
        asInstalled: args['as-installed'],
      };
      const cluster = await startOursCluster({ name: 'ours-2-nodes', nodes: 2, ...common });
      targets.push(cluster);
      // "One node" is the first node of the same cluster, measured alone.
      const first = {
        name: 'ours-1-node',
        url: cluster.urls[0],
        urls: [cluster.urls[0]],
        pids: [cluster.pids[0]],
        stop: async () => {},
      };
      targets.unshift(first);
      seedTarget = first;
    } else {
      const ours = await startEmbedded();
      targets.push(ours);
      seedTarget = ours;
    }

    // A reused data directory: let the start-up's background work (orphan tarballs, scores) end first.
    for (const pid of targets.flatMap((t) => t.pids)) await settle(pid);
    log('seeding our registry through the publish API…');
    const token = await login(seedTarget.url);
    for (const t of targets) t.token = token;
    const seedParameters = JSON.stringify({
      packages: options.packages,
      versions: options.versions,
      tarballSize: options.tarballSize,
    });
    const marker = args.data && !args['scale-out'] ? path.join(path.resolve(args.data), 'bench-seed.json') : undefined;
    let seeded;
    if (marker && existsSync(marker) && JSON.stringify(JSON.parse(readFileSync(marker, 'utf8')).parameters) === seedParameters) {
      seeded = JSON.parse(readFileSync(marker, 'utf8')).seeded;
      log(`  reusing the registry seeded before in ${args.data}`);
    } else {
      seeded = await seedRegistry(seedTarget.url, token, { ...options, log });
      log(
        `  ${seeded.publishes} publishes in ${seeded.seconds.toFixed(1)} s (${Math.round(seeded.publishes / seeded.seconds)}/s, 8 concurrent)`,
      );
      if (marker) writeFileSync(marker, JSON.stringify({ parameters: JSON.parse(seedParameters), seeded }));
      if (!args['scale-out']) {
        // Measure the server a reused data directory gets: one started on the registry. The one
        // that took the seeding's publishes at full speed holds what they left behind (4–8 MiB of
        // freed memory V8 and malloc keep), which no workload below would show otherwise.
        log('  restarting our registry on the seeded data…');
        await targets.pop().stop();
        const ours = await startEmbedded();
        await settle(ours.pids[0]);
        ours.token = token;
        targets.push(ours);
        seedTarget = ours;
      }
    }
    const workloads = benchWorkloads({ corpusNames: seeded.names }).filter((w) => !wanted || wanted.has(w.id));

    let verdaccio;
    if (args['with-verdaccio']) {
      const installed = await installVerdaccio(log);
      verdaccio = await startVerdaccio({ bin: installed.bin, workDir });
      verdaccio.token = await login(verdaccio.url);
      log(`seeding Verdaccio (${options.verdaccioPackages} corpus packages × 1 version and the special packages)…`);
      const v = await seedRegistry(verdaccio.url, verdaccio.token, {
        ...options,
        packages: options.verdaccioPackages,
        versions: 1,
        concurrency: 4,
        log,
      });
      log(`  ${v.publishes} publishes in ${v.seconds.toFixed(1)} s`);
      verdaccio.corpusNames = v.names;
      targets.push(verdaccio);
    }

    // Each workload's responses are captured just before it runs: capturing all of them first
    // would leave every document of the registry in our server's cache (documents-all reads
    // them all) and measure every workload with it.
    const ceiling = await startCeiling({ workDir });
    targets.unshift(ceiling);
    const captureOf = async (workload) => {
      if (workload.kind !== 'publish') return capture(seedTarget.url, workload, token);
      const name = `com.bench.capture-${runId}`;
      const manifest = manifestOf({ name, description: 'capture', keywords: [], author: 'Bench' }, '1.0.0');
      const body = publishBody(manifest, tarballWith(manifest, randomPayload(20 * 1024)), '# capture\n');
      return { responses: { [`PUT /${name}`]: replayable(await publish(seedTarget.url, token, body, name)) } };
    };

    const results = {};
    const order = targets.map((t) => t.name);
    for (const workload of workloads) {
      results[workload.id] = {};
      log(`\n${workload.id}: ${workload.label}`);
      await ceiling.load(workload.id, await captureOf(workload));
      for (let round = 1; round <= options.rounds; round++) {
        for (const target of targets) {
          const w =
            target.name === 'verdaccio' && workload.id === 'documents-all'
              ? { ...workload, paths: verdaccio.corpusNames.map((n) => `/${n}`) }
              : workload;
          if (w.paths && w.paths.length === 0) continue;
          // Verdaccio is not given an uplink to our upstream: the workload is ours alone.
          if (target.name === 'verdaccio' && w.needsUpstream) continue;
          const scope = `com.benchpub.${runId}.r${round}${target.name.replace(/[^a-z0-9]/g, '')}`;
          if (round === 1 && options.warmup > 0) await measure(target, w, options.warmup, workDir, `${scope}.warm`);
          const run = await measure(target, w, options.duration, workDir, scope);
          (results[workload.id][target.name] ??= []).push(run);
          log(
            `  round ${round} ${target.name.padEnd(13)} ${run.rps.toFixed(0).padStart(7)} req/s  p50 ${run.p50.toFixed(2)} ms  p99 ${run.p99.toFixed(2)} ms  ` +
              `CPU ${run.requests > 0 ? ((run.cpuSeconds / run.requests) * 1e6).toFixed(0) : '–'} µs/req  RSS ${run.rssMiB.toFixed(0)} MiB` +
              (run.badStatus + run.socketErrors > 0
                ? `  errors ${run.badStatus + run.socketErrors} ${run.firstError ?? ''}`
                : ''),
          );
        }
      }
    }

    const rows = tableRows(workloads, results, order);
    const load = os.loadavg().map((l) => Math.round(l * 10) / 10);
    log(
      `\n${started.toISOString()} · ${machine().cpus} × ${machine().model} · Node ${process.version} · load average ${load.join(' ')}`,
    );
    log(formatTable(rows));
    const report = {
      date: started.toISOString(),
      machine: machine(),
      loadAverageAtEnd: load,
      mode: args['scale-out'] ? 'scale-out' : 'embedded',
      options,
      asInstalled: args['as-installed'],
      nodeFlags: args['as-installed'] ? [] : REGISTRY_NODE_FLAGS,
      nodeEnv: REGISTRY_NODE_ENV,
      seeded: { publishes: seeded.publishes, seconds: seeded.seconds },
      rows,
      runs: results,
    };
    const out = args.json ?? path.join(resultsDir, `bench-${report.mode}-${started.toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
    log(`\nresults written to ${path.relative(process.cwd(), out)}`);
    if (largePackage || largeRegistry || installs) {
      for (const target of targets.splice(0)) await target.stop().catch(() => undefined);
      if (largeRegistry) await largeRegistryRun();
      if (largePackage) await largePackageRun();
      if (installs) await installsRun();
    }
  } finally {
    for (const target of targets) await target.stop().catch(() => undefined);
    await upstream?.stop().catch(() => undefined);
    await cleanupScaleOut().catch((err) => log(`cleanup failed: ${err.message}`));
    if (profileDir && existsSync(profileDir)) {
      const keepDir = path.join(resultsDir, 'profiles');
      mkdirSync(keepDir, { recursive: true });
      cpSync(profileDir, keepDir, { recursive: true });
      log(`CPU profiles in ${path.relative(process.cwd(), keepDir)}`);
    }
    if (args.keep) log(`kept ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
