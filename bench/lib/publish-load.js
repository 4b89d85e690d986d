// The publish workload: `concurrency` clients, each publishing a new version as soon as its last
// publish was answered, for a bounded time. Every publish is a unique version (spread over
// `packages` packages, so documents stay a realistic size) with an incompressible tarball.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { request } from './http.js';
import { manifestOf, publishBody, randomPayload, tarballWith } from './tarballs.js';

export async function runPublishLoad({
  baseUrl,
  token,
  seconds,
  concurrency = 4,
  tarballSize = 20 * 1024,
  packages = 100,
  scope,
}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const payload = randomPayload(tarballSize);
  const latencies = [];
  let next = 0;
  let errors = 0;
  let firstError;
  const started = performance.now();
  const end = started + seconds * 1000;
  async function worker() {
    while (performance.now() < end) {
      const i = next++;
      const name = `${scope}.p${i % packages}`;
      const manifest = manifestOf(
        { name, description: `Publish benchmark package ${name}`, keywords: ['bench'], author: 'Bench <bench@example.com>' },
        `1.0.${Math.floor(i / packages)}`,
      );
      const body = publishBody(manifest, tarballWith(manifest, payload), `# ${name}\n`);
      const t0 = performance.now();
      try {
        const res = await request(`${baseUrl}/${name}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body,
          useAgent: agent,
        });
        if (res.status !== 201 && res.status !== 200) {
          errors++;
          firstError ??= `${res.status} ${res.body.toString().slice(0, 200)}`;
        }
      } catch (err) {
        errors++;
        firstError ??= err.message;
      }
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    seconds: elapsed,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    max: latencies[latencies.length - 1] ?? NaN,
    socketErrors: 0,
    badStatus: errors,
    firstError,
  };
}
