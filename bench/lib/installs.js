// The install benchmark (issue 29, part 2): whole installs of generated Unity, Godot 4 and
// Unreal 5 projects by `pkg install`, and of the same package sets by `npm install`, timed in
// the same run against our registry and against the limit (lib/install-ceiling.js: the same
// bytes from memory); then `npm install` through an uplink (a second registry of ours proxying
// the first) and through Verdaccio 6.8.0 proxying the same. See bench/README.md, "Installs".
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, request, waitForHttp } from './http.js';
import { cpuSeconds } from './process-stats.js';
import { login } from './seed.js';
import { ENGINES, NAMESPACE, copyProject, packageSet, publishSet, writeNpmProject, writePkgProject } from './install-projects.js';
import { installVerdaccio, repoRoot, startOurs } from './targets.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PROBE = pathToFileURL(path.join(here, 'install-probe.mjs')).href;
// BENCH_PKG_BIN: another build of the client (a worktree of an earlier commit, built), same harness.
const PKG_BIN = process.env.BENCH_PKG_BIN ?? path.join(repoRoot, 'packages/cli/bin/pkg.js');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Runs a client to its end; wall time from spawn to exit, with what the probe of every Node process of it saw. */
function runClient(command, args, { cwd, env, probeFile, timeoutMs = 300_000 }) {
  rmSync(probeFile, { force: true });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: { ...env, NODE_OPTIONS: `--import=${PROBE}`, BENCH_INSTALL_PROBE: probeFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const seconds = (performance.now() - t0) / 1000;
      const lines = existsSync(probeFile)
        ? readFileSync(probeFile, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
      const sum = (k) => lines.reduce((s, l) => s + l[k], 0);
      resolve({
        code,
        stdout,
        stderr,
        seconds,
        requests: sum('requests'),
        connections: sum('connections'),
        bytesRead: sum('bytesRead'),
        bytesWritten: sum('bytesWritten'),
        clientCpu: sum('cpuSeconds'),
        processes: lines.length,
      });
    });
  });
}

/** Lines of a server's log file, its request count when it logs one line per request. */
function logLines(file) {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"msg":"request"')).length;
  } catch {
    return 0;
  }
}

async function startInstallCeiling(workDir, upstreamUrl) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(here, 'install-ceiling.js'), String(port), upstreamUrl], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/__stats`, 30_000, () => !exited);
  return {
    name: 'limit',
    url,
    pids: [child.pid],
    async mode(m) {
      await request(`${url}/__mode/${m}`, { method: 'PUT', useAgent: false });
    },
    async delay(ms) {
      await request(`${url}/__delay/${ms}`, { method: 'PUT', useAgent: false });
    },
    async stats() {
      return JSON.parse((await request(`${url}/__stats`, { useAgent: false })).body.toString());
    },
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Verdaccio 6.8.0 serving `namespace` from `upstreamUrl` (an uplink), in a fresh storage folder. */
async function startVerdaccioProxy({ bin, dir, upstreamUrl }) {
  const port = await freePort();
  mkdirSync(path.join(dir, 'storage'), { recursive: true });
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
      'uplinks:',
      '  origin:',
      `    url: ${upstreamUrl}/`,
      '    maxage: 1d',
      'packages:',
      `  '${NAMESPACE}.*':`,
      '    access: $all',
      '    proxy: origin',
      "  '**':",
      '    access: $all',
      'log: { type: file, path: ' + JSON.stringify(path.join(dir, 'verdaccio.log')) + ', format: json, level: http }',
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    stdio: 'ignore',
    cwd: dir,
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/-/ping`, 120_000, () => !exited);
  return {
    url,
    pids: [child.pid],
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/**
 * Everything: seeds our registry, writes the projects, records the limit's answers, then
 * `rounds` rounds of every (engine, client, target, cold|warm), then the uplink runs.
 */
export async function runInstalls({
  workDir,
  rounds = 3,
  engines = Object.keys(ENGINES),
  withVerdaccio = false,
  uplink = true,
  uplinkOnly = false,
  log,
  pkgNodeArgs = [],
  comparePkg,
  compareServer,
  latencyMs = 0,
}) {
  /** `pkg` and, with comparePkg, another build of it run as `pkg-before` on the same projects. */
  const pkgBins = { pkg: PKG_BIN, ...(comparePkg ? { 'pkg-before': comparePkg } : {}) };
  const clients = [...Object.keys(pkgBins), 'npm'];
  const isPkg = (client) => client in pkgBins;
  const dir = (...p) => path.join(workDir, 'installs', ...p);
  mkdirSync(dir(), { recursive: true });
  const kit = await import(pathToFileURL(path.join(repoRoot, 'packages/testkit/dist/index.js')).href);
  const ours = await startOurs({ name: 'installs-ours', dataDir: dir('ours-data'), workDir });
  const servers = [ours];
  const results = [];
  const uplinkResults = [];
  try {
    const token = await login(ours.url);
    const sets = Object.fromEntries(engines.map((e) => [e, packageSet(e)]));
    const t0 = performance.now();
    for (const set of Object.values(sets)) await publishSet(kit, ours.url, token, set);
    log(
      `installs: published ${engines.map((e) => `${ENGINES[e].packages} ${e}`).join(', ')} packages × 3 versions in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const baseEnv = (home) => {
      const env = {};
      for (const [k, v] of Object.entries(process.env)) if (!/^(PKG_|XDG_|npm_|NODE_OPTIONS)/i.test(k)) env[k] = v;
      return {
        ...env,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local/share'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
        NO_COLOR: '1',
      };
    };
    const pkgRun = (projectDir, registry, cache, probeFile, bin = PKG_BIN) =>
      runClient(process.execPath, [...pkgNodeArgs, bin, 'install', '--json'], {
        cwd: projectDir,
        env: { ...baseEnv(dir('home')), PKG_REGISTRY: registry, PKG_CACHE_DIR: cache },
        probeFile,
      });
    const npmRun = (projectDir, registry, cache, probeFile) =>
      runClient(
        'npm',
        [
          'install',
          '--registry',
          `${registry}/`,
          '--cache',
          cache,
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
          '--ignore-scripts',
        ],
        {
          cwd: projectDir,
          env: { ...baseEnv(dir('home')), npm_config_update_notifier: 'false' },
          probeFile,
        },
      );
    const check = (what, r, expected) => {
      if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}): ${r.stderr.slice(0, 800)} ${r.stdout.slice(0, 800)}`);
      if (expected !== undefined && expected(r) === false)
        throw new Error(`${what}: unexpected result ${r.stdout.slice(0, 800)}`);
    };
    const pkgCount = (engine, stdout) => {
      const json = JSON.parse(stdout);
      return engine === 'unity' ? json.fetched.length : json.installed.length + json.in_place.length;
    };

    // Templates: the projects as committed (Godot, Unreal: pkg.json, pkg-lock.json and the edited
    // project file; npm of the Godot and Unreal sets: package-lock.json), their URLs those of our registry.
    const templates = {};
    for (const [engine, set] of Object.entries(sets)) {
      const pkgTemplate = dir('templates', `pkg-${engine}`);
      rmSync(pkgTemplate, { recursive: true, force: true });
      writePkgProject(pkgTemplate, set, ours.url);
      const npmTemplate = dir('templates', `npm-${engine}`);
      rmSync(npmTemplate, { recursive: true, force: true });
      writeNpmProject(npmTemplate, set);
      if (engine !== 'unity') {
        const r = await pkgRun(pkgTemplate, ours.url, dir('template-cache'), dir('probe.jsonl'));
        check(`pkg install (writing the lock of ${engine})`, r);
        for (const f of ['addons', 'Plugins', '.pkg-install.lock'])
          rmSync(path.join(pkgTemplate, f), { recursive: true, force: true });
        const n = await npmRun(npmTemplate, ours.url, dir('template-npm-cache'), dir('probe.jsonl'));
        check(`npm install (writing the lock of ${engine})`, n);
        rmSync(path.join(npmTemplate, 'node_modules'), { recursive: true, force: true });
      }
      templates[engine] = { pkg: pkgTemplate, npm: npmTemplate, count: set.packages.length };
    }
    rmSync(dir('template-cache'), { recursive: true, force: true });
    rmSync(dir('template-npm-cache'), { recursive: true, force: true });

    const limit = await startInstallCeiling(workDir, ours.url);
    servers.push(limit);
    const targets = [limit, { name: 'ours', url: ours.url, pids: ours.pids }];

    /** One cold and one warm install of `client` on `engine`'s project against `target`. */
    const coldAndWarm = async (engine, client, target) => {
      const project = dir('run', `${client}-${engine}-${target.name}`);
      const cache = dir('run', `cache-${client}-${engine}-${target.name}`);
      rmSync(cache, { recursive: true, force: true });
      const out = [];
      for (const state of ['cold', 'warm']) {
        copyProject(templates[engine][isPkg(client) ? 'pkg' : 'npm'], project, ours.url, target.url);
        const before = target.pids.map(cpuSeconds);
        const statsBefore = target.url === limit.url ? await limit.stats() : undefined;
        const r = isPkg(client)
          ? await pkgRun(project, target.url, cache, dir('probe.jsonl'), pkgBins[client])
          : await npmRun(project, target.url, cache, dir('probe.jsonl'));
        const serverCpu = target.pids.map(cpuSeconds).reduce((s, t, i) => s + t - before[i], 0);
        check(
          `${client} install ${engine} ${state} against ${target.name}`,
          r,
          isPkg(client) ? (x) => pkgCount(engine, x.stdout) === templates[engine].count : undefined,
        );
        if (statsBefore) {
          const after = await limit.stats();
          if (after.mode === 'replay' && after.misses > statsBefore.misses)
            throw new Error(`the limit was asked for something not recorded (${client} ${engine} ${state})`);
        }
        if (client === 'npm' && !existsSync(path.join(project, 'node_modules', set0(engine))))
          throw new Error(`npm install ${engine}: node_modules incomplete`);
        out.push({ engine, client, target: target.name, state, ...pick(r), serverCpu });
      }
      return out;
    };
    const set0 = (engine) => sets[engine].direct[0];

    // The limit records every answer in one unmeasured pass, then replays them.
    log('installs: recording the limit’s answers (one unmeasured pass)…');
    if (uplinkOnly) await coldAndWarm('unity', 'npm', limit);
    else for (const engine of engines) for (const client of clients) await coldAndWarm(engine, client, limit);
    await limit.mode('replay');

    for (let round = 0; round < (uplinkOnly ? 0 : rounds); round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const engine of engines) {
        for (const client of clients) {
          for (const target of order) {
            const rows = await coldAndWarm(engine, client, target);
            for (const row of rows) results.push({ round, load: os.loadavg()[0], ...row });
            log(
              `  round ${round + 1} ${client} ${engine} ${target.name}: ${rows.map((x) => `${x.state} ${x.seconds.toFixed(2)} s`).join(', ')}`,
            );
          }
        }
      }
    }

    // The limit again, each answer delayed as by a registry `latencyMs` away: what the client's
    // own round trips cost when they are not free (loopback), whatever the machine's load.
    if (latencyMs > 0 && !uplinkOnly) {
      await limit.delay(latencyMs);
      const far = { ...limit, name: `limit+${latencyMs}ms` };
      for (let round = 0; round < rounds; round++) {
        for (const engine of engines) {
          for (const client of clients) {
            const rows = await coldAndWarm(engine, client, far);
            for (const row of rows) results.push({ round, load: os.loadavg()[0], ...row });
            log(
              `  latency round ${round + 1} ${client} ${engine}: ${rows.map((x) => `${x.state} ${x.seconds.toFixed(2)} s`).join(', ')}`,
            );
          }
        }
      }
      await limit.delay(0);
    }

    if (uplink && engines.includes('unity')) {
      const verdaccio = withVerdaccio ? await installVerdaccio(log) : undefined;
      const npmTemplate = templates.unity.npm;
      for (let round = 0; round < rounds; round++) {
        const proxies = [];
        const frontData = dir('run', `front-data-${round}`);
        rmSync(frontData, { recursive: true, force: true });
        const uplinks = [{ name: 'origin', url: ours.url, packages: [`${NAMESPACE}.*`], maxAge: 86400 }];
        const front = await startOurs({
          name: `installs-front-${round}`,
          dataDir: frontData,
          workDir,
          extraFlags: ['--uplinks', JSON.stringify(uplinks)],
        });
        proxies.push({ name: 'ours-proxy', server: front, log: path.join(workDir, `installs-front-${round}.log`) });
        if (compareServer) {
          const beforeData = dir('run', `front-before-data-${round}`);
          rmSync(beforeData, { recursive: true, force: true });
          proxies.push({
            name: 'ours-proxy-before',
            server: await startOurs({
              name: `installs-front-before-${round}`,
              dataDir: beforeData,
              workDir,
              extraFlags: ['--uplinks', JSON.stringify(uplinks)],
              registryBin: compareServer,
            }),
          });
        }
        if (verdaccio) {
          const vdir = dir('run', `verdaccio-${round}`);
          rmSync(vdir, { recursive: true, force: true });
          proxies.push({
            name: 'verdaccio-proxy',
            server: await startVerdaccioProxy({ bin: verdaccio.bin, dir: vdir, upstreamUrl: ours.url }),
          });
        }
        try {
          // npm's own CPU time grows along the runs of a round (bench/README.md, "npm through an
          // uplink"): the order of the targets is reversed every other round, a proxy's cold run
          // always right before its cached one.
          const units = [
            { name: 'direct-ours', url: ours.url, pids: ours.pids },
            { name: 'direct-limit', url: limit.url, pids: limit.pids },
          ].map((t) => async () => {
            const project = dir('run', 'npm-uplink');
            const cache = dir('run', 'cache-npm-uplink');
            rmSync(cache, { recursive: true, force: true });
            copyProject(npmTemplate, project, ours.url, t.url);
            const before = t.pids.map(cpuSeconds);
            const r = await npmRun(project, t.url, cache, dir('probe.jsonl'));
            check(`npm install through ${t.name}`, r);
            uplinkResults.push({
              round,
              load: os.loadavg()[0],
              target: t.name,
              state: 'cold',
              ...pick(r),
              serverCpu: t.pids.map(cpuSeconds).reduce((s, x, i) => s + x - before[i], 0),
              upstreamCpu: 0,
              upstreamRequests: 0,
            });
          });
          for (const p of proxies) {
            units.push(async () => {
              for (const state of ['cold', 'cached']) {
                const project = dir('run', 'npm-uplink');
                const cache = dir('run', 'cache-npm-uplink');
                rmSync(cache, { recursive: true, force: true });
                copyProject(npmTemplate, project, ours.url, p.server.url);
                const before = p.server.pids.map(cpuSeconds);
                const upBefore = cpuSeconds(ours.pids[0]);
                const linesBefore = logLines(path.join(workDir, 'installs-ours.log'));
                const r = await npmRun(project, p.server.url, cache, dir('probe.jsonl'));
                check(`npm install through ${p.name} (${state})`, r);
                uplinkResults.push({
                  round,
                  load: os.loadavg()[0],
                  target: p.name,
                  state,
                  ...pick(r),
                  serverCpu: p.server.pids.map(cpuSeconds).reduce((s, x, i) => s + x - before[i], 0),
                  upstreamCpu: cpuSeconds(ours.pids[0]) - upBefore,
                  upstreamRequests: logLines(path.join(workDir, 'installs-ours.log')) - linesBefore,
                });
              }
            });
          }
          if (round % 2 === 1) units.reverse();
          for (const unit of units) await unit();
          log(
            `  uplink round ${round + 1}: ${uplinkResults
              .filter((u) => u.round === round)
              .map((u) => `${u.target} ${u.state} ${u.seconds.toFixed(2)} s (npm CPU ${u.clientCpu.toFixed(2)} s)`)
              .join(', ')}`,
          );
        } finally {
          for (const p of proxies) await p.server.stop().catch(() => undefined);
        }
      }
    }
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
  }
  return { rows: summarize(results), uplinkRows: summarizeUplink(uplinkResults), runs: results, uplinkRuns: uplinkResults };
}

function pick(r) {
  return {
    seconds: r.seconds,
    clientCpu: r.clientCpu,
    requests: r.requests,
    connections: r.connections,
    bytesRead: r.bytesRead,
    bytesWritten: r.bytesWritten,
    processes: r.processes,
  };
}

function summarize(runs) {
  const groups = new Map();
  for (const r of runs) {
    const key = `${r.engine}|${r.client}|${r.state}|${r.target}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const rows = [];
  for (const [key, list] of groups) {
    const [engine, client, state, target] = key.split('|');
    const limitList = groups.get(`${engine}|${client}|${state}|limit`) ?? [];
    // Per-round ratio to the limit's run of the same round (back to back), median over rounds.
    const ratios = list
      .map((r) => {
        const l = limitList.find((x) => x.round === r.round);
        return l ? r.seconds / l.seconds : NaN;
      })
      .filter((x) => !Number.isNaN(x));
    rows.push({
      engine,
      client,
      state,
      target,
      seconds: median(list.map((r) => r.seconds)),
      ofLimit: median(ratios),
      clientCpu: median(list.map((r) => r.clientCpu)),
      serverCpu: median(list.map((r) => r.serverCpu)),
      requests: median(list.map((r) => r.requests)),
      connections: median(list.map((r) => r.connections)),
      bytesRead: median(list.map((r) => r.bytesRead)),
      rounds: list.length,
    });
  }
  return rows;
}

function summarizeUplink(runs) {
  const groups = new Map();
  for (const r of runs) {
    const key = `${r.target}|${r.state}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  return [...groups].map(([key, list]) => {
    const [target, state] = key.split('|');
    const direct = runs.filter((r) => r.target === 'direct-ours');
    const ratios = list
      .map((r) => r.seconds / (direct.find((d) => d.round === r.round)?.seconds ?? NaN))
      .filter((x) => !Number.isNaN(x));
    return {
      target,
      state,
      seconds: median(list.map((r) => r.seconds)),
      ofDirect: median(ratios),
      clientCpu: median(list.map((r) => r.clientCpu)),
      serverCpu: median(list.map((r) => r.serverCpu)),
      upstreamCpu: median(list.map((r) => r.upstreamCpu)),
      requests: median(list.map((r) => r.requests)),
      upstreamRequests: median(list.map((r) => r.upstreamRequests)),
      bytesRead: median(list.map((r) => r.bytesRead)),
      rounds: list.length,
    };
  });
}

const mb = (b) => (b / 1024 / 1024).toFixed(1);

export function formatInstalls({ rows, uplinkRows }) {
  const lines = [
    '| project | client | state | target | wall s | × limit | client CPU s | server CPU s | other s | requests | connections | MiB read |',
    '|:--|:--|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  const order = (r) => [
    Object.keys(ENGINES).indexOf(r.engine),
    r.client,
    r.state === 'cold' ? 0 : 1,
    r.target === 'limit' ? 0 : 1,
  ];
  const sorted = [...rows].sort((a, b) => {
    const x = order(a);
    const y = order(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  });
  for (const r of sorted) {
    const other = Math.max(0, r.seconds - r.clientCpu - r.serverCpu);
    lines.push(
      `| ${r.engine} (${ENGINES[r.engine].packages}) | ${r.client} | ${r.state} | ${r.target} | ${r.seconds.toFixed(2)} | ${r.target === 'limit' ? '1.00' : r.ofLimit.toFixed(2)} | ${r.clientCpu.toFixed(2)} | ${r.serverCpu.toFixed(2)} | ${other.toFixed(2)} | ${r.requests} | ${r.connections} | ${mb(r.bytesRead)} |`,
    );
  }
  if (uplinkRows.length > 0) {
    lines.push(
      '',
      '| npm install, unity set (50) | proxy cache | wall s | × direct | client CPU s | proxy CPU s | upstream CPU s | requests | upstream requests | MiB read |',
      '|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const r of uplinkRows) {
      lines.push(
        `| ${r.target} | ${r.target.startsWith('direct') ? '–' : r.state} | ${r.seconds.toFixed(2)} | ${r.ofDirect.toFixed(2)} | ${r.clientCpu.toFixed(2)} | ${r.serverCpu.toFixed(2)} | ${r.upstreamCpu.toFixed(2)} | ${r.requests} | ${r.target.startsWith('direct') ? '–' : r.upstreamRequests} | ${mb(r.bytesRead)} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The installs part with the flags of either runner; prints its tables and writes its JSON. */
export async function installsPart({
  latencyMs,
  workDir,
  resultsDir,
  started,
  rounds,
  engines,
  withVerdaccio,
  uplink,
  uplinkOnly = false,
  profile,
  json,
  comparePkg,
  compareServer,
  log,
}) {
  const profileDir = profile ? path.join(resultsDir, 'profiles') : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const report = await runInstalls({
    workDir,
    rounds,
    engines,
    withVerdaccio,
    uplink,
    uplinkOnly,
    log,
    comparePkg,
    compareServer,
    latencyMs,
    pkgNodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  const load = os.loadavg().map((l) => Math.round(l * 10) / 10);
  log(
    `\n${started.toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model} · Node ${process.version} · load average ${load.join(' ')}`,
  );
  log(formatInstalls(report));
  const out = json ?? path.join(resultsDir, `installs-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ date: started.toISOString(), loadAverageAtEnd: load, ...report }, null, 2) + '\n');
  log(`results written to ${path.relative(process.cwd(), out)}`);
}
