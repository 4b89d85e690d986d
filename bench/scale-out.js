#!/usr/bin/env node
// Scale-out benchmark: the same workload against the embedded default (one process, SQLite +
// files) and against one and two `pkg-registry` processes on PostgreSQL + S3 (s3rver) + Redis,
// all on this machine. It measures throughput and latency of package document reads, tarball
// downloads, searches and publishes at a fixed number of concurrent connections, spreading
// requests over the nodes round-robin as a load balancer would. See docs/scale-out.md.
//
// Needs `npm run build`, PostgreSQL and Redis (PKG_TEST_POSTGRES, PKG_TEST_REDIS; defaults
// postgres://postgres@127.0.0.1:5432/test and redis://127.0.0.1:6379). Every run uses a fresh
// schema, key prefix and bucket, removed at the end. Traffic stays on 127.0.0.1.
//
// node bench/scale-out.js --help lists the flags.
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  freshPostgresSchema,
  freshRedisPrefix,
  loginUser,
  publishBody,
  publishVersion,
  spawnRegistry,
  startS3Server,
} from '../packages/testkit/dist/index.js';
import { parseFlags } from './lib/flags.js';

const USAGE = `Usage: node bench/scale-out.js [--packages 200] [--connections 16] [--duration 8]
                               [--max-requests 50000] [--profiles embedded,scale-out-1,scale-out-2]
                               [--json <file>]
See docs/scale-out.md.
`;
const args = parseFlags(
  {
    packages: { type: 'string', default: '200' },
    connections: { type: 'string', default: '16' },
    duration: { type: 'string', default: '8' },
    'max-requests': { type: 'string', default: '50000' },
    profiles: { type: 'string', default: 'embedded,scale-out-1,scale-out-2' },
    json: { type: 'string' },
  },
  USAGE,
);
const PACKAGES = Number(args.packages);
const CONNECTIONS = Number(args.connections);
const DURATION_MS = Number(args.duration) * 1000;
const MAX_REQUESTS = Number(args['max-requests']);
const POSTGRES = process.env.PKG_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = process.env.PKG_TEST_REDIS ?? 'redis://127.0.0.1:6379';

const NO_LIMITS = {
  PKG_REGISTRY_RATE_LIMIT_ANONYMOUS: '0',
  PKG_REGISTRY_RATE_LIMIT_AUTHENTICATED: '0',
  PKG_REGISTRY_RATE_LIMIT_PUBLISH: '0',
  PKG_REGISTRY_LOG_LEVEL: 'warn',
};

/** Starts the nodes of a profile; returns their URLs and a cleanup. */
async function startProfile(profile) {
  if (profile === 'embedded') {
    const node = await spawnRegistry({ env: NO_LIMITS, args: ['--log-level', 'info'] });
    return {
      urls: [node.url],
      async stop() {
        await node.cleanup();
      },
    };
  }
  const count = Number(profile.split('-').pop());
  const postgres = freshPostgresSchema(POSTGRES);
  const redis = freshRedisPrefix(REDIS);
  const s3 = await startS3Server();
  const nodes = [];
  for (let i = 0; i < count; i++) {
    nodes.push(
      await spawnRegistry({
        args: ['--database', postgres.url, '--storage', s3.url, '--redis', redis.url, '--log-level', 'info'],
        env: { ...NO_LIMITS, ...s3.env },
      }),
    );
  }
  return {
    urls: nodes.map((n) => n.url),
    async stop() {
      for (const node of nodes) await node.cleanup();
      await s3.close();
      await postgres.drop();
      await redis.drop();
    },
  };
}

function request(url, agent, options = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Runs `next()`-chosen requests on CONNECTIONS connections for the duration (or max requests). */
async function load(name, next) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies = [];
  let errors = 0;
  let sent = 0;
  const deadline = performance.now() + DURATION_MS;
  const started = performance.now();
  async function worker() {
    while (performance.now() < deadline && sent < MAX_REQUESTS) {
      sent++;
      const { url, options, ok } = next();
      const t0 = performance.now();
      try {
        const status = await request(url, agent, options);
        if (!ok(status)) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 10) / 10;
  return {
    scenario: name,
    requests: latencies.length,
    rps: Math.round(latencies.length / seconds),
    p50: at(0.5),
    p99: at(0.99),
    errors,
  };
}

async function runProfile(profile) {
  const cluster = await startProfile(profile);
  const { urls } = cluster;
  let turn = 0;
  const node = () => urls[turn++ % urls.length];
  try {
    const token = await loginUser(urls[0], 'bench');
    const names = Array.from({ length: PACKAGES }, (_, i) => `com.bench.pkg${i}`);
    for (let i = 0; i < names.length; i += 8) {
      await Promise.all(
        names.slice(i, i + 8).map((name, j) =>
          publishVersion(node(), token, name, '1.0.0', {
            manifest: {
              description: `Benchmark package ${i + j} for input and audio tools`,
              keywords: ['bench', `k${(i + j) % 20}`],
            },
          }),
        ),
      );
    }
    const results = [];
    results.push(await load('document', () => ({ url: `${node()}/${names[(turn * 7) % names.length]}`, ok: (s) => s === 200 })));
    results.push(
      await load('tarball', () => {
        const name = names[(turn * 13) % names.length];
        return { url: `${node()}/${name}/-/${name}-1.0.0.tgz`, ok: (s) => s === 200 };
      }),
    );
    const texts = ['input', 'audio', 'bench', 'pkg1', 'k7', 'tools'];
    results.push(
      await load('search', () => ({
        url: `${node()}/-/v1/search?text=${texts[turn % texts.length]}&size=20`,
        ok: (s) => s === 200,
      })),
    );
    let version = 0;
    results.push(
      await load('publish', () => {
        const v = `2.0.${version++}`;
        const name = names[version % names.length];
        const body = JSON.stringify(publishBody(name, v).body);
        return {
          url: `${node()}/${name}`,
          options: {
            method: 'PUT',
            body,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          ok: (s) => s === 201,
        };
      }),
    );
    return results.map((r) => ({ profile, nodes: urls.length, ...r }));
  } finally {
    await cluster.stop();
  }
}

const rows = [];
for (const profile of args.profiles.split(',')) rows.push(...(await runProfile(profile.trim())));
console.log(`${os.cpus().length} CPUs, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per scenario, ${PACKAGES} packages`);
console.log('profile        nodes  scenario   requests    req/s   p50 ms   p99 ms  errors');
for (const r of rows) {
  console.log(
    `${r.profile.padEnd(14)} ${String(r.nodes).padStart(5)}  ${r.scenario.padEnd(9)} ${String(r.requests).padStart(9)} ${String(r.rps).padStart(8)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.errors).padStart(7)}`,
  );
}
if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 2));
