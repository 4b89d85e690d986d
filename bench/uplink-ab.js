#!/usr/bin/env node
// A proxying registry of ours against another build of it, with a client that costs nothing
// (fetch, 8 at a time) instead of npm: the abbreviated document and the tarball of each of 40
// packages (8 KiB–1.5 MiB, random bytes), cold (a fresh proxy: everything fetched upstream)
// then cached, the two builds alternating, each round on fresh proxies. Wall time per pass and
// the proxy's CPU time, and how long a tarball's first bytes took to come. See bench/README.md, "npm through an uplink" (Stop 35).
//
//   node bench/uplink-ab.js --before <other checkout>/packages/server/bin/pkg-registry.js [--rounds 8]
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseFlags } from './lib/flags.js';
import { cpuSeconds } from './lib/process-stats.js';
import { repoRoot } from './lib/targets.js';

const args = parseFlags(
  { before: { type: 'string' }, rounds: { type: 'string', default: '8' } },
  'Usage: node bench/uplink-ab.js --before <pkg-registry.js of another build> [--rounds <n>]\n',
);
if (!args.before) throw new Error('--before <bin> is required');
const kit = await import(pathToFileURL(path.join(repoRoot, 'packages/testkit/dist/index.js')).href);
const builds = { after: path.join(repoRoot, 'packages/server/bin/pkg-registry.js'), before: path.resolve(args.before) };
const { fetch } = globalThis;
const NO_LIMIT = '1000000';
const limits = ['--rate-limit-anonymous', NO_LIMIT, '--rate-limit-authenticated', NO_LIMIT, '--rate-limit-publish', NO_LIMIT];
const PACKAGES = 40;
// Log-uniform from 8 KiB to 1.5 MiB, in a shuffled order.
const sizes = Array.from({ length: PACKAGES }, (_, i) =>
  Math.round(8192 * Math.pow((1536 * 1024) / 8192, ((i * 7) % PACKAGES) / (PACKAGES - 1))),
);
const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const start = (bin, extra = []) =>
  kit.spawnRegistry({ command: { file: process.execPath, args: [bin, 'serve'] }, args: [...limits, ...extra] });

const origin = await start(builds.after);
const results = {};
try {
  const token = await kit.loginUser(origin.url, 'bench-user');
  for (let i = 0; i < PACKAGES; i++) {
    const published = await kit.publishVersion(origin.url, token, `com.ab.p${i}`, '1.0.0', {
      files: [{ path: 'package/data.bin', content: randomBytes(sizes[i]) }],
    });
    if (published.status !== 201) throw new Error(`publish answered ${published.status}`);
  }
  const uplinks = JSON.stringify([{ name: 'origin', url: origin.url, packages: ['com.ab.*'], maxAge: 86400 }]);
  const rounds = Math.max(1, Number(args.rounds) || 1);
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? ['after', 'before'] : ['before', 'after']) {
      const proxy = await start(builds[name], ['--uplinks', uplinks]);
      try {
        for (const state of ['cold', 'cached']) {
          const cpu0 = cpuSeconds(proxy.serverPid);
          const t0 = performance.now();
          const firstBytes = [];
          await Promise.all(
            Array.from({ length: 8 }, async (_, k) => {
              for (let i = k; i < PACKAGES; i += 8) {
                const doc = await fetch(`${proxy.url}/com.ab.p${i}`, {
                  headers: { accept: 'application/vnd.npm.install-v1+json' },
                });
                await doc.arrayBuffer();
                const asked = performance.now();
                const tarball = await fetch(`${proxy.url}/com.ab.p${i}/-/com.ab.p${i}-1.0.0.tgz`);
                const reader = tarball.body.getReader();
                let size = 0;
                for (let part = await reader.read(); !part.done; part = await reader.read()) {
                  if (size === 0) firstBytes.push(performance.now() - asked);
                  size += part.value.byteLength;
                }
                const bytes = { byteLength: size };
                if (tarball.status !== 200 || bytes.byteLength === 0) throw new Error(`${name} ${state}: ${tarball.status}`);
              }
            }),
          );
          (results[`${name} ${state}`] ??= []).push({
            ms: performance.now() - t0,
            cpu: cpuSeconds(proxy.serverPid) - cpu0,
            firstByteMs: median(firstBytes),
          });
        }
      } finally {
        await proxy.stop();
        await proxy.cleanup();
      }
    }
  }
} finally {
  await origin.stop();
  await origin.cleanup();
}
console.log(
  `${new Date().toISOString()} · load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  "| proxy | state | wall ms (median) | per round | proxy CPU s (median) | first byte of a tarball, ms (median of the rounds' medians) |",
);
console.log('|:--|:--|--:|:--|--:|--:|');
for (const [key, list] of Object.entries(results)) {
  const [name, state] = key.split(' ');
  console.log(
    `| ${name} | ${state} | ${median(list.map((r) => r.ms)).toFixed(0)} | ${list.map((r) => r.ms.toFixed(0)).join(' ')} | ${median(list.map((r) => r.cpu)).toFixed(3)} | ${median(list.map((r) => r.firstByteMs)).toFixed(1)} |`,
  );
}
for (const state of ['cold', 'cached']) {
  const after = results[`after ${state}`];
  const before = results[`before ${state}`];
  const ratios = after.map((r, i) => r.ms / before[i].ms);
  const geo = Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length);
  console.log(
    `${state}: after / before, geometric mean of ${ratios.length} pairs ${geo.toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(' ')})`,
  );
}
process.exit(0);
