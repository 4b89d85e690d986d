// The servers under test, each a separate process on 127.0.0.1 whose CPU and memory are read
// from /proc: our registry (the built dist), the ceiling (bare node:http replaying our bytes)
// and, on request, Verdaccio 6.8.0 installed into a temporary directory.
import { execFile, spawn } from 'node:child_process';
import { clearTimeout, setTimeout } from 'node:timers';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, request, waitForHttp } from './http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
// BENCH_REGISTRY_BIN: another build of the server (say a worktree of an earlier commit), same harness.
const REGISTRY_BIN = process.env.BENCH_REGISTRY_BIN ?? path.join(repoRoot, 'packages/server/bin/pkg-registry.js');
const START_SCRIPT = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts.start;
/** Node's own flags as `npm start` gives them (the root package.json's start script), so the
 * server is measured as it is started; BENCH_NODE_FLAGS (space-separated) replaces them. */
export const REGISTRY_NODE_FLAGS =
  process.env.BENCH_NODE_FLAGS !== undefined
    ? process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean)
    : startScriptWords(START_SCRIPT).flags;
/** The environment the start script sets before `node` (`NAME=value` words), given to the server too. */
export const REGISTRY_NODE_ENV = startScriptWords(START_SCRIPT).env;

function startScriptWords(script) {
  const words = script.trim().split(/\s+/);
  const env = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift().split('=');
    env[name] = value.join('=');
  }
  if (words[0] !== 'node') throw new Error(`the start script does not run node: ${script}`);
  return { env, flags: words.slice(1).filter((w) => w.startsWith('--')) };
}

/** High enough never to refuse a benchmark request, so rate limiting is measured but not hit. */
const NO_LIMIT = '1000000000';

function spawnServer(name, args, { logFile, env, cwd, file = process.execPath }) {
  const out = openSync(logFile, 'a');
  const child = spawn(file, args, { stdio: ['ignore', out, out], env: { ...process.env, ...env }, cwd });
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  void exit.then(() => (exited = true));
  return {
    name,
    child,
    pids: [child.pid],
    alive: () => !exited,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/**
 * Our registry from the built dist, logging at `info` (one JSON line per request) into a file,
 * rate limits on but out of reach. `storageFlags` picks the drivers (scale-out mode).
 * `asInstalled`: started as docs/operations.md tells an operator to start the installed program,
 * `pkg-registry serve` through npm's bin link: the bin file itself (its `#!/usr/bin/env node`),
 * no node options, no UV_THREADPOOL_SIZE; it then starts itself again with its options
 * (node-options.ts), and `pids` are the server's, the child (the parent is listed as `parentPid`).
 */
export async function startOurs({
  name = 'ours',
  dataDir,
  workDir,
  storageFlags = [],
  extraFlags = [],
  env = {},
  cpuProfileDir,
  asInstalled = false,
  /** Another build's `packages/server/bin/pkg-registry.js` (a before/after comparison). */
  registryBin = REGISTRY_BIN,
}) {
  const port = await freePort();
  const args = [
    ...(asInstalled ? [] : REGISTRY_NODE_FLAGS),
    ...(cpuProfileDir && !asInstalled ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : []),
    ...(asInstalled ? [] : [registryBin]),
    'serve',
    ...['--data', dataDir, '--host', '127.0.0.1', '--port', String(port)],
    ...['--rate-limit-anonymous', NO_LIMIT, '--rate-limit-authenticated', NO_LIMIT, '--rate-limit-publish', NO_LIMIT],
    ...['--log-level', 'info'],
    ...storageFlags,
    ...extraFlags,
  ];
  const server = asInstalled
    ? spawnServer(name, args, {
        logFile: path.join(workDir, `${name}.log`),
        env: { UV_THREADPOOL_SIZE: '', PKG_REGISTRY_RELAUNCH: '', ...env },
        file: REGISTRY_BIN,
      })
    : spawnServer(name, args, { logFile: path.join(workDir, `${name}.log`), env: { ...REGISTRY_NODE_ENV, ...env } });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/-/ping`, 120_000, server.alive).catch((err) => {
    const tail = readFileSync(path.join(workDir, `${name}.log`), 'utf8')
      .trim()
      .split('\n')
      .slice(-5)
      .join('\n');
    throw new Error(`${err.message}\n${tail}`);
  });
  if (!asInstalled) return { ...server, url, urls: [url] };
  const parentPid = server.pids[0];
  const children = readFileSync(`/proc/${parentPid}/task/${parentPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  // None when the program ran the server in its own process (it had every option already).
  const pids = children.length > 0 ? children.map(Number) : [parentPid];
  return { ...server, pids, parentPid, url, urls: [url] };
}

/** Several nodes of our registry sharing one storage configuration (scale-out). */
export async function startOursCluster({ name, nodes, ...options }) {
  const servers = [];
  for (let i = 0; i < nodes; i++) servers.push(await startOurs({ ...options, name: `${name}-node${i + 1}` }));
  return {
    name,
    urls: servers.map((s) => s.url),
    url: servers[0].url,
    pids: servers.flatMap((s) => s.pids),
    alive: () => servers.every((s) => s.alive()),
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}

/** The ceiling server, replaying `capturesFile`. */
export async function startCeiling({ workDir }) {
  const port = await freePort();
  const server = spawnServer('ceiling', [path.join(here, 'ceiling-server.js'), String(port)], {
    logFile: path.join(workDir, 'ceiling.log'),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/__ping`, 30_000, server.alive);
  return {
    ...server,
    url,
    urls: [url],
    /** Replaces the responses the ceiling replays with one workload's captured ones. */
    async load(workload, capture) {
      const res = await request(`${url}/__ceiling/${encodeURIComponent(workload)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(capture),
      });
      if (res.status !== 204) throw new Error(`the ceiling refused the captures of ${workload}: ${res.body.toString()}`);
    },
  };
}

export const VERDACCIO_VERSION = '6.8.0';

/**
 * Verdaccio 6.8.0 in a temporary directory (kept between runs: the install takes a while).
 * On Node 20 it needs node-fetch forced to 2.7.0 (npm `overrides`).
 */
export async function installVerdaccio(log) {
  const dir = path.join(os.tmpdir(), `pkg-registry-bench-verdaccio-${VERDACCIO_VERSION}`);
  const bin = path.join(dir, 'node_modules/verdaccio/bin/verdaccio');
  if (existsSync(bin)) return { dir, bin };
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      { private: true, dependencies: { verdaccio: VERDACCIO_VERSION }, overrides: { 'node-fetch': '2.7.0' } },
      null,
      2,
    ),
  );
  log(`installing Verdaccio ${VERDACCIO_VERSION} into ${dir} (once)…`);
  await new Promise((resolve, reject) =>
    execFile(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: dir, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      (err, _stdout, stderr) => (err ? reject(new Error(`npm install verdaccio failed: ${stderr || err.message}`)) : resolve()),
    ),
  );
  if (!existsSync(bin)) throw new Error(`Verdaccio was installed but ${bin} is missing`);
  return { dir, bin };
}

/** Verdaccio with its defaults (htpasswd, legacy tokens), no uplinks, logging like ours. */
export async function startVerdaccio({ bin, workDir, maxBodySize = '300mb' }) {
  const port = await freePort();
  const root = path.join(workDir, 'verdaccio');
  mkdirSync(path.join(root, 'storage'), { recursive: true });
  const config = path.join(root, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(path.join(root, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(path.join(root, 'htpasswd'))}`,
      '    max_users: 1000',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      `max_body_size: ${maxBodySize}`,
      'log: { type: stdout, format: json, level: http }',
      '',
    ].join('\n'),
  );
  const server = spawnServer('verdaccio', [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    logFile: path.join(workDir, 'verdaccio.log'),
    cwd: root,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/-/ping`, 120_000, server.alive);
  return { ...server, url, urls: [url] };
}
