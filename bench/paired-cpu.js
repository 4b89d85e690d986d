#!/usr/bin/env node
// Two builds of the server, CPU time per request, paired: for each workload in turn, wrk against
// one build then the other (the order alternating by round), each build's server CPU read from
// /proc/<pid>/stat. The minimum per build over the rounds is what a loaded machine lets through
// least distorted; run it on a quiet one to decide.
//
//   node bench/paired-cpu.js --before ../before/packages/server/bin/pkg-registry.js \
//     --after packages/server/bin/pkg-registry.js --data ./bench-data [--rounds 3] [--seconds 4]
//
// `--data` is a directory `npm run bench -- --data` seeded (its bench-seed.json names the
// packages); each build serves a copy of it.
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { REGISTRY_NODE_ENV, REGISTRY_NODE_FLAGS } from './lib/targets.js';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    data: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
  },
});
if (!values.before || !values.after || !values.data) {
  console.error('usage: node bench/paired-cpu.js --before <bin> --after <bin> --data <seeded dir> [--rounds 3] [--seconds 4]');
  process.exit(2);
}
const seedFile = path.join(values.data, 'bench-seed.json');
if (!existsSync(seedFile)) {
  console.error(`${seedFile} is missing: seed it first with npm run bench -- --data ${values.data}`);
  process.exit(2);
}
const seed = JSON.parse(readFileSync(seedFile, 'utf8'));
const name = seed.seeded.names[5];
const workDir = mkdtempSync(path.join(tmpdir(), 'pkg-paired-cpu-'));
const NO_LIMIT = '1000000000';

const servers = {};
let port = 47100 + Math.floor(Math.random() * 1000);
for (const label of ['before', 'after']) {
  const dir = path.join(workDir, label);
  cpSync(values.data, dir, { recursive: true });
  const url = `http://127.0.0.1:${++port}`;
  const args = [...REGISTRY_NODE_FLAGS, path.resolve(values[label]), 'serve', '--data', dir, '--host', '127.0.0.1'];
  args.push(
    '--port',
    String(port),
    '--rate-limit-anonymous',
    NO_LIMIT,
    '--rate-limit-authenticated',
    NO_LIMIT,
    '--log-level',
    'info',
  );
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...REGISTRY_NODE_ENV, PKG_REGISTRY_RELAUNCH: '0' },
  });
  servers[label] = { child, url };
}
for (const { url } of Object.values(servers)) {
  for (let i = 0; ; i++) {
    const up = await globalThis.fetch(`${url}/-/ping`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) break;
    if (i > 300) throw new Error(`${url} did not start`);
    await sleep(200);
  }
}

/** utime + stime of a process, in clock ticks (1/100 s). */
function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const workloads = {
  'full document': [['Accept-Encoding: identity'], `/${name}`],
  'abbreviated + gzip': [['Accept: application/vnd.npm.install-v1+json', 'Accept-Encoding: gzip'], `/${name}`],
  'not found': [[], '/com.acme.no-such-package'],
  tarball: [[], `/${name}/-/${name}-1.0.0.tgz`],
  search: [[], '/-/v1/search?text=vor&size=20'],
};
const samples = {};
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const [workload, [headers, target]] of Object.entries(workloads)) {
    for (const label of order) {
      const { child, url } = servers[label];
      const headerArgs = headers.flatMap((header) => ['-H', header]);
      execFileSync('wrk', ['-t1', '-c20', '-d1s', ...headerArgs, url + target]);
      const start = cpuTicks(child.pid);
      const out = execFileSync('wrk', ['-t2', '-c50', `-d${values.seconds}s`, ...headerArgs, url + target]).toString();
      const used = cpuTicks(child.pid) - start;
      const requests = Number(/(\d+) requests in/.exec(out)[1]);
      (samples[workload] ??= { before: [], after: [] })[label].push((used * 10_000) / requests);
    }
  }
}
for (const { child } of Object.values(servers)) child.kill();
rmSync(workDir, { recursive: true, force: true });

const round1 = (n) => Math.round(n * 10) / 10;
console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log(
  '| workload | before µs/req (min) | after µs/req (min) | after ÷ before | before, every round | after, every round |',
);
console.log('|---|--:|--:|--:|---|---|');
for (const [workload, { before, after }] of Object.entries(samples)) {
  const [b, a] = [Math.min(...before), Math.min(...after)];
  console.log(
    `| ${workload} | ${round1(b)} | ${round1(a)} | ${(a / b).toFixed(2)} | ${before.map(round1).join(' ')} | ${after.map(round1).join(' ')} |`,
  );
}
